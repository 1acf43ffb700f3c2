#define BOOST_TEST_MODULE tree_sampler
// What the tools read of a driver's tree: devices in index order (not name
// order), core counts, links, device names and the memory their generation
// has, memory use by category, ECC counts where the driver has them; a
// tree with damaged or missing files read as far as it goes, never thrown;
// and why there is nothing to show: no tree (no driver), no device in it, or
// permissions that keep it out.

#include "tree_sampler.h"

#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace neuron::tools;

namespace {

struct fake_tree {
    neuron::test_support::temporary_directory directory{"neuron-tools-tree-test"};
    fs::path root{directory.path()};
    void file(const std::string& relative, const std::string& text) const { directory.write(relative, text); }
    void device(std::uint32_t d, const std::string& links) const {
        const auto dir = "neuron" + std::to_string(d) + "/";
        file(dir + "core_count", "2\n");
        file(dir + "connected_devices", links + "\n");
        file(dir + "info/architecture/device_name", "Trainium1\n");
        file(dir + "stats/memory_usage/host_mem/dma_buffers/present", "4096\n");
        file(dir + "stats/hardware/mem_ecc_uncorrected", "3\n");
        for (int c = 0; c < 2; ++c) {
            file(dir + "neuron_core" + std::to_string(c) + "/stats/memory_usage/device_mem/model_code/present",
                 std::to_string(8192 * (c + 1)) + "\n");
        }
    }
};

// How reading `root` ends: "read N" (devices), or the failure's reason, path, call and errno.
std::string outcome_of(const fs::path& root) {
    try {
        return fmt::format("read {}", read_devices(root.string()).size());
    } catch (const no_devices_error& e) {
        const char* why = e.why() == discovery_failure::no_driver    ? "no_driver"
                          : e.why() == discovery_failure::no_devices ? "no_devices"
                                                                     : "unreadable";
        return fmt::format("{} {} {} {}", why, e.path(), e.operation(), e.error_number());
    }
}

// outcome_of(root) in a child process that runs as nobody when the test is
// root (root reads whatever the modes say) and as the test's user otherwise.
std::string outcome_without_privileges(const fs::path& root) {
    int out[2];
    BOOST_TEST_REQUIRE(::pipe(out) == 0);
    const pid_t child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0);
    if (child == 0) {
        ::close(out[0]);
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(100);
        const auto text = outcome_of(root);
        const bool written = ::write(out[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
        ::_exit(written ? 0 : 101);
    }
    ::close(out[1]);
    std::string text;
    char buffer[512];
    for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(out[0]);
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST_REQUIRE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child's wait status " << status);
    return text;
}

// A fake tree that nobody may enter down to `closed`, whose mode becomes 0
// until this is destroyed.
struct closed_path {
    fs::path path;
    fs::perms mode;
    closed_path(const fake_tree& tree, fs::path closed)
            : path(std::move(closed)), mode(fs::status(path).permissions()) {
        fs::permissions(tree.root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                       fs::perms::others_read | fs::perms::others_exec);
        fs::permissions(path, fs::perms::none);
    }
    ~closed_path() { fs::permissions(path, mode); }
    closed_path(const closed_path&) = delete;
    closed_path& operator=(const closed_path&) = delete;
};

} // namespace

BOOST_AUTO_TEST_CASE(devices_are_read_in_index_order_with_what_sysfs_shows) {
    fake_tree tree;
    for (std::uint32_t d = 0; d < 11; ++d)
        tree.device(d, d == 10 ? "9" : std::to_string(d + 1) + ", " + std::to_string(d));
    const auto devices = read_devices(tree.root.string());
    BOOST_TEST_REQUIRE(devices.size() == 11u);
    for (std::uint32_t d = 0; d < 11; ++d) BOOST_TEST(devices[d].index == d); // neuron10 after neuron9
    const auto& d0 = devices[0];
    BOOST_TEST(d0.physical_cores == 2u);
    BOOST_TEST(d0.connected == (std::vector<std::uint32_t>{1, 0}));
    BOOST_TEST(devices[10].connected == (std::vector<std::uint32_t>{9}));
    BOOST_TEST(d0.device_name == "Trainium1");
    BOOST_TEST(d0.memory_bytes == 32ull << 30);
    BOOST_TEST(d0.host_mem.at("dma_buffers") == 4096u);
    BOOST_TEST(d0.mem_ecc_uncorrected.value_or(0) == 3u);
    BOOST_TEST(!d0.sram_ecc_corrected.has_value()); // no such file
    BOOST_TEST_REQUIRE(d0.cores.size() == 2u);
    BOOST_TEST(d0.cores[1].index == 1u);
    BOOST_TEST(d0.cores[1].device_mem.at("model_code") == 16384u);
}

BOOST_AUTO_TEST_CASE(damaged_files_are_left_out_and_the_rest_read) {
    fake_tree tree;
    tree.device(0, "");
    tree.file("neuron0/core_count", "two\n");                         // unreadable count: the core directories say
    tree.file("neuron0/connected_devices", "1, x, 99999999999, 2\n"); // only the ids that parse
    tree.file("neuron0/stats/hardware/mem_ecc_uncorrected", "-1\n");
    tree.file("neuron0/info/architecture/device_name", "Unheard-of\n");
    tree.file("neuronX/core_count", "2\n"); // not a device directory
    const auto devices = read_devices(tree.root.string());
    BOOST_TEST_REQUIRE(devices.size() == 1u);
    BOOST_TEST(devices[0].physical_cores == 2u);
    BOOST_TEST(devices[0].connected == (std::vector<std::uint32_t>{1, 2}));
    BOOST_TEST(!devices[0].mem_ecc_uncorrected.has_value());
    BOOST_TEST(devices[0].memory_bytes == 0u); // a generation it does not know: unknown
}

BOOST_AUTO_TEST_CASE(no_tree_is_no_driver) {
    BOOST_TEST(outcome_of("/nonexistent-root") == "no_driver /nonexistent-root  0");
    fake_tree tree;
    tree.file("file", "");
    BOOST_TEST(outcome_of(tree.root / "file") == "no_driver " + (tree.root / "file").string() + "  0");
}

BOOST_AUTO_TEST_CASE(a_tree_without_a_device_directory_has_no_devices) {
    fake_tree tree;
    BOOST_TEST(outcome_of(tree.root) == "no_devices " + tree.root.string() + "  0");
    tree.file("neuronX/core_count", "2\n");
    BOOST_TEST(outcome_of(tree.root) == "no_devices " + tree.root.string() + "  0");
}

BOOST_AUTO_TEST_CASE(a_tree_permissions_keep_out_is_unreadable) {
    fake_tree tree;
    tree.device(0, "");
    const auto root = tree.root / "tree";
    fs::create_directory(root);
    const closed_path closed(tree, root);
    BOOST_TEST(outcome_without_privileges(root) == fmt::format("unreadable {} open {}", root.string(), EACCES));
}

BOOST_AUTO_TEST_CASE(a_device_permissions_keep_out_is_unreadable) {
    fake_tree tree;
    tree.device(0, "");
    tree.device(1, "");
    const closed_path closed(tree, tree.root / "neuron1");
    BOOST_TEST(outcome_without_privileges(tree.root) ==
               fmt::format("unreadable {}/neuron1 open {}", tree.root.string(), EACCES));
}

// core_count and connected_devices are root's alone in the driver (0400): a
// user still sees the devices, without what those files say.
BOOST_AUTO_TEST_CASE(a_devices_root_only_files_are_left_out) {
    fake_tree tree;
    tree.device(0, "");
    tree.device(1, "");
    const closed_path count(tree, tree.root / "neuron1/core_count");
    const closed_path links(tree, tree.root / "neuron1/connected_devices");
    const closed_path name(tree, tree.root / "neuron1/info/architecture/device_name");
    BOOST_TEST(outcome_without_privileges(tree.root) == "read 2");
}

// Metric files are 0600 before driver 2.15: a user reads the rest.
BOOST_AUTO_TEST_CASE(metric_files_permissions_keep_out_are_left_out) {
    fake_tree tree;
    tree.device(0, "");
    const closed_path closed(tree, tree.root / "neuron0/stats/memory_usage/host_mem/dma_buffers/present");
    BOOST_TEST(outcome_without_privileges(tree.root) == "read 1");
}
