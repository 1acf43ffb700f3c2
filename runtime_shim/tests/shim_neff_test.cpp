#define BOOST_TEST_MODULE shim_neff
// An application's NEFFs through the shim, end to end (issue: real NEFFs):
// nrt_load takes a compiled NEFF (built here from the documented layout,
// neff/tests/neff_builder.h), nrt_get_model_tensor_info reports its
// signature, the driver's device_mem categories of each physical core show
// what the runtime charges, the shared scratchpad holds the largest graph
// loaded (not the sum), an execution counts the NEFF's flops, and a NEFF the
// emulator cannot load is NRT_INVALID with one log line saying why.

#include "neff_builder.h"
#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

#include <fstream>

using namespace neuron::shim::testing;
using neuron::neff::testing::neff_builder;

namespace {

constexpr std::uint64_t mib = 1 << 20;
constexpr std::uint64_t page = 64 * mib; // the contiguous scratchpad's page

// The driver allocates whole 4 KiB pages.
constexpr std::uint64_t pages(std::uint64_t bytes) { return (bytes + 4095) / 4096 * 4096; }
// two_core_matmul() per core: code, constants, DMA rings (16 B x 16 per transfer).
constexpr std::uint64_t code[2] = {pages(3936), pages(4384)};
constexpr std::uint64_t constants = pages(32768 + 512);
constexpr std::uint64_t rings[2] = {pages(2 * 256), pages(3 * 256)};
constexpr std::uint64_t macs = 4194304;

std::string write(const temp_dir& dir, const std::string& name, const std::string& bytes) {
    const auto path = dir.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// The matmul with 1.5 MiB of incompressible debug data, so that it goes to
// the emulator in several pieces, and its sg00 scratchpad at 96 MiB when `big_scratchpad`.
std::string matmul_neff(bool big_scratchpad) {
    auto b = neff_builder::two_core_matmul();
    std::string noise(3 * mib / 2, '\0');
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto& c : noise) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = static_cast<char>(x);
    }
    b.members["debug_info/noise.dbg"] = noise;
    if (big_scratchpad) {
        auto& def = b.members["sg00/def.json"];
        const std::string from = R"("backing_variable_off": 65536)";
        def.replace(def.find(from), from.size(), R"("backing_variable_off": 100663296)");
    }
    return b.bytes();
}

std::uint64_t device_mem(served_instance& emu, std::uint32_t core, const std::string& category) {
    return emu.core_counter(0, core, "memory_usage/device_mem/" + category);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_neff, diagnostics)

BOOST_AUTO_TEST_CASE(a_neff_loads_runs_and_shows_what_the_runtime_charges) {
    require_mount("this test");
    served_instance emu({.instance = "trn2.48xlarge"}); // LNC=2: a logical core of two physical ones
    const auto small = write(emu.dir(), "small.neff", matmul_neff(false));
    const auto big = write(emu.dir(), "big.neff", matmul_neff(true));
    program app(emu.dir(), "neff_run", {.args = {small, big, "--pause"}, .control = emu.control()});

    app.expect("loaded");
    for (std::uint32_t core = 0; core < 2; ++core) {
        BOOST_TEST_CONTEXT("physical core " << core) {
            BOOST_TEST(device_mem(emu, core, "model_code") == 2 * code[core]);
            BOOST_TEST(device_mem(emu, core, "constants") == 2 * constants);
            BOOST_TEST(device_mem(emu, core, "dma_rings") == 2 * rings[core]);
            BOOST_TEST(device_mem(emu, core, "nonshared_scratchpad") == 0u);
        }
    }
    BOOST_TEST(device_mem(emu, 0, "model_shared_scratchpad") == 2 * page, "the larger graph's, not the sum");
    BOOST_TEST(device_mem(emu, 1, "model_shared_scratchpad") == page);
    BOOST_TEST(emu.core_counter(0, 2, "memory_usage/device_mem") == 0u, "the next logical core holds nothing");
    app.send("go");

    BOOST_TEST(app.expect("tensor ") == "tensor name=x usage=input dtype=7 size=65536 shape=128x256");
    BOOST_TEST(app.expect("tensor ") == "tensor name=y usage=input dtype=7 size=65536 shape=256x128");
    BOOST_TEST(app.expect("tensor ") == "tensor name=output0 usage=output dtype=7 size=32768 shape=128x128");
    app.expect("output output0 unchanged");
    app.expect("executed");
    app.send("go");

    app.expect("unloaded 1");
    BOOST_TEST(device_mem(emu, 0, "model_shared_scratchpad") == page, "shrinks to the graph still loaded");
    BOOST_TEST(device_mem(emu, 0, "model_code") == code[0]);
    BOOST_TEST(device_mem(emu, 1, "model_code") == code[1]);
    app.send("go");
    app.expect("unloaded 0");
    for (std::uint32_t core = 0; core < 2; ++core)
        BOOST_TEST(emu.core_counter(0, core, "memory_usage/device_mem") == 0u);
    app.send("go");
    app.expect("closed");
    app.send("go");
    app.expect("PASS");
    app.require_exit(0);

    emu.ctl_ok({"status"});
    BOOST_TEST(emu.core_counter(0, 0, "other_info/flop_count") == 2 * macs);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/inference_count") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 2u);
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 1u);
}

// Threads of one process loading NEFFs at once: each arrives whole.
BOOST_AUTO_TEST_CASE(neffs_loaded_by_threads_at_once_each_arrive_whole) {
    require_mount("this test");
    served_instance emu({.instance = "trn2.48xlarge"});
    std::vector<std::string> args;
    for (int i = 0; i < 4; ++i)
        args.push_back(write(emu.dir(), "m" + std::to_string(i) + ".neff", matmul_neff(i % 2 == 1)));
    args.push_back("--together");
    const auto r = run_program(emu.dir(), "neff_run", {.args = args, .control = emu.control()});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(find_line(r.lines, "PASS") == "PASS");
}

// On trn1 (LNC=1) the two-core NEFF is refused as the runtime refuses it,
// while a one-core NEFF loads; a broken NEFF is refused naming what is wrong.
BOOST_AUTO_TEST_CASE(a_neff_that_cannot_load_is_invalid_with_one_log_line) {
    require_mount("this test");
    served_instance emu;
    const auto env = std::map<std::string, std::string>{{"NEURON_RT_VISIBLE_CORES", "0"}};
    const auto two_cores = write(emu.dir(), "two.neff", neff_builder::two_core_matmul().bytes());
    auto refused = run_program(emu.dir(), "neff_run", {.args = {two_cores}, .env = env, .control = emu.control()});
    BOOST_TEST(refused.status == 3);
    BOOST_TEST(find_line(refused.lines, "load ") == "load NRT_INVALID");
    auto logged = log_lines(refused.err);
    BOOST_TEST_REQUIRE(logged.size() == 1u, refused.err);
    BOOST_TEST(contains(logged[0], "NRT:nrt_load"), logged[0]);
    BOOST_TEST(contains(logged[0], "'matmul.neff' was compiled for 2 NeuronCores"), logged[0]);

    auto cut = neff_builder::two_core_matmul().bytes();
    cut.resize(cut.size() - 100);
    const auto truncated = write(emu.dir(), "cut.neff", cut);
    refused = run_program(emu.dir(), "neff_run", {.args = {truncated}, .env = env, .control = emu.control()});
    BOOST_TEST(refused.status == 3);
    logged = log_lines(refused.err);
    BOOST_TEST_REQUIRE(logged.size() == 1u, refused.err);
    BOOST_TEST(contains(logged[0], "NEFF \"file.neff\" (" + std::to_string(cut.size()) + " bytes) cannot be loaded: "),
               logged[0]);
    BOOST_TEST(contains(logged[0], "payload"), logged[0]);

    const auto one_core = write(emu.dir(), "tiny.neff", neff_builder::one_core_minimal().bytes());
    const auto loaded = run_program(emu.dir(), "neff_run", {.args = {one_core}, .env = env, .control = emu.control()});
    BOOST_TEST(loaded.status == 0, loaded.err);
    BOOST_TEST(find_line(loaded.lines, "tensor name=a") == "tensor name=a usage=input dtype=10 size=8 shape=2");

    emu.ctl_ok({"status"});
    BOOST_TEST(emu.core_counter(0, 0, "status/invalid_error") == 2u, "each refused load counts");
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem") == 0u, "no partial load left behind");
}

BOOST_AUTO_TEST_SUITE_END()
