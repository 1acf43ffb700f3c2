#define BOOST_TEST_MODULE kernfs_order
#include <boost/test/unit_test.hpp>

#include "neuron/sysfs/kernfs_order.h"
#include "neuron/test_support/skip.h"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using namespace neuron::sysfs;
namespace tt = boost::test_tools;

namespace {

constexpr std::uint32_t int_max = 0x7fffffffu;

std::vector<std::string> kernfs_sorted(std::vector<std::string> names) {
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return kernfs_before(a, b); });
    return names;
}

// The names of a real directory in the order readdir returns them, without "." and "..".
std::optional<std::vector<std::string>> kernel_listing(const char* path) {
    DIR* dir = ::opendir(path);
    if (dir == nullptr) return std::nullopt;
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dir)) {
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") continue;
        names.emplace_back(name);
    }
    ::closedir(dir);
    return names;
}

// Compares the kernel's readdir order of a real directory with kernfs_before.
// The directories used are not tagged with a namespace (their hashes have no
// salt); a host without them skips the case (77) rather than pass it.
void check_real_order(const char* path) {
    const auto listed = kernel_listing(path);
    if (!listed) neuron::test_support::skip(std::string(path) + " cannot be read here: " + std::strerror(errno));
    BOOST_TEST_REQUIRE(listed->size() >= 2u);
    BOOST_TEST(kernfs_sorted(*listed) == *listed, tt::per_element());
}

} // namespace

BOOST_AUTO_TEST_CASE(misc_device_directory_order_matches_the_kernel) {
    // `ls -f /sys/devices/virtual/misc/fuse` on a 6.18 kernel.
    const std::vector<std::string> observed{"uevent", "power", "dev", "subsystem"};
    BOOST_TEST(kernfs_sorted({"dev", "power", "subsystem", "uevent"}) == observed, tt::per_element());
    BOOST_TEST(kernfs_sorted({"subsystem", "uevent", "dev", "power"}) == observed, tt::per_element());
}

BOOST_AUTO_TEST_CASE(power_directory_order_matches_the_kernel) {
    // `ls -f /sys/devices/virtual/misc/fuse/power`.
    const std::vector<std::string> observed{"runtime_active_time", "runtime_status", "autosuspend_delay_ms",
                                            "runtime_suspended_time", "control"};
    BOOST_TEST(kernfs_sorted({"autosuspend_delay_ms", "control", "runtime_active_time", "runtime_status",
                              "runtime_suspended_time"}) == observed,
               tt::per_element());
}

BOOST_AUTO_TEST_CASE(before_is_a_strict_order) {
    const std::vector<std::string_view> names{"uevent", "power", "dev", "subsystem", "total", "present", "peak", ""};
    for (const auto a : names) {
        BOOST_TEST(!kernfs_before(a, a));
        for (const auto b : names) {
            if (a == b) continue;
            BOOST_TEST(kernfs_before(a, b) != kernfs_before(b, a), a << " vs " << b);
        }
    }
}

BOOST_AUTO_TEST_CASE(before_compares_hashes_first) {
    // "uevent" sorts before "dev" although it is alphabetically later.
    BOOST_TEST(kernfs_name_hash("uevent") < kernfs_name_hash("dev"));
    BOOST_TEST(kernfs_before("uevent", "dev"));
    BOOST_TEST(!kernfs_before("dev", "uevent"));
}

BOOST_AUTO_TEST_CASE(hash_is_deterministic_and_depends_on_every_byte) {
    BOOST_TEST(kernfs_name_hash("neuron0") == kernfs_name_hash(std::string("neuron") + "0"));
    BOOST_TEST(kernfs_name_hash("neuron0") != kernfs_name_hash("neuron1"));
    BOOST_TEST(kernfs_name_hash("ab") != kernfs_name_hash("ba"));
}

BOOST_AUTO_TEST_CASE(empty_name_hashes_to_the_first_free_value) {
    // The raw hash of "" is 0, which kernfs reserves: it becomes 2.
    BOOST_TEST(kernfs_name_hash("") == 2u);
}

BOOST_AUTO_TEST_CASE(a_name_whose_hash_folds_to_zero_is_moved_to_two) {
    // Found by search: the folded 31-bit hash of this name is 0.
    BOOST_TEST(kernfs_name_hash("c0uvlik") == 2u);
}

BOOST_AUTO_TEST_CASE(a_name_whose_hash_folds_to_int_max_is_moved_below_it) {
    // Found by search: the folded 31-bit hash of this name is INT_MAX.
    BOOST_TEST(kernfs_name_hash("9qptyl6") == int_max - 1);
}

BOOST_AUTO_TEST_CASE(hash_never_takes_a_reserved_value) {
    std::string name;
    for (int i = 0; i < 20000; ++i) {
        name = "n" + std::to_string(i * 7919);
        const auto h = kernfs_name_hash(name);
        BOOST_TEST_REQUIRE(h >= 2u, name);
        BOOST_TEST_REQUIRE(h < int_max, name);
    }
}

BOOST_AUTO_TEST_CASE(equal_hashes_fall_back_to_the_name) {
    // Two names with the same (clamped) hash: "" and "c0uvlik" both hash to 2.
    BOOST_TEST_REQUIRE(kernfs_name_hash("") == kernfs_name_hash("c0uvlik"));
    BOOST_TEST(kernfs_before("", "c0uvlik"));
    BOOST_TEST(!kernfs_before("c0uvlik", ""));
}

BOOST_AUTO_TEST_CASE(real_fuse_device_directory_sorts_like_readdir) {
    check_real_order("/sys/devices/virtual/misc/fuse");
}

BOOST_AUTO_TEST_CASE(real_power_directory_sorts_like_readdir) {
    check_real_order("/sys/devices/virtual/misc/fuse/power");
}

BOOST_AUTO_TEST_CASE(real_loopback_statistics_sort_like_readdir) {
    check_real_order("/sys/devices/virtual/net/lo/statistics");
}

BOOST_AUTO_TEST_CASE(real_class_directory_sorts_like_readdir) { check_real_order("/sys/class"); }

BOOST_AUTO_TEST_CASE(real_loopback_device_directory_sorts_like_readdir) {
    check_real_order("/sys/devices/virtual/net/lo");
}

BOOST_AUTO_TEST_CASE(real_kernel_directory_sorts_like_readdir) { check_real_order("/sys/kernel"); }
