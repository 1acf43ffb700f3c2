#define BOOST_TEST_MODULE tree_sampler
// What the tools read of a driver's tree: devices in index order (not name
// order), core counts, links, device names and the memory their generation
// has, memory use by category, ECC counts where the driver has them; and a
// tree with damaged or missing files read as far as it goes, never thrown.

#include "tree_sampler.h"

#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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

BOOST_AUTO_TEST_CASE(no_tree_is_no_device) {
    BOOST_TEST(read_devices("/nonexistent-root").empty());
    fake_tree tree;
    BOOST_TEST(read_devices(tree.root.string()).empty());
}
