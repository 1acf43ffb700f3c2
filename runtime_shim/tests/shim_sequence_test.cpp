#define BOOST_TEST_MODULE shim_sequence
// The runtime developer guide's canonical call sequence (nrt-api.md §3.6)
// from a C program (and the same program compiled as C++17) against a
// served instance, checking the output and, at each step, what the driver's
// sysfs tree shows (driver-sysfs.md §3): memory while the model and tensors
// are held and after they are freed, and the datastore counters once the
// process has exited.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::shim::testing;

namespace {

// runtime_shim/models/add.yaml
constexpr std::uint64_t model_code = 1048576;
constexpr std::uint64_t constants = 4194304;
constexpr std::uint64_t scratchpad = 2097152;
constexpr std::uint64_t runtime_memory = 65536;
constexpr std::uint64_t dma_buffers = 262144;
constexpr std::uint64_t macs = 12;
constexpr std::uint64_t page = 4096;
constexpr std::uint64_t tensor_pages = 3 * page; // a, b, out: 24 bytes each, a page each

std::uint64_t device_mem(served_instance& emu, const std::string& category = "") {
    return emu.core_counter(0, 0, category.empty() ? "memory_usage/device_mem" : "memory_usage/device_mem/" + category);
}

void canonical_sequence(const std::string& program_name) {
    require_mount(program_name);
    served_instance emu;
    BOOST_TEST(device_mem(emu) == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 0u);

    program app(emu.dir(), program_name,
                {.args = {shipped_model("add.yaml"), "--pause"},
                 .env = {{"NEURON_RT_VISIBLE_CORES", "0"}},
                 .control = emu.control()});

    app.expect("loaded");
    BOOST_TEST(device_mem(emu, "model_code") == model_code);
    BOOST_TEST(device_mem(emu, "constants") == constants);
    BOOST_TEST(device_mem(emu, "model_shared_scratchpad") == scratchpad);
    BOOST_TEST(device_mem(emu, "runtime_memory") == runtime_memory);
    BOOST_TEST(device_mem(emu, "tensors") == 0u);
    BOOST_TEST(device_mem(emu) == model_code + constants + scratchpad + runtime_memory);
    BOOST_TEST(emu.host_category(0, "dma_buffers") == dma_buffers);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/host_mem") == dma_buffers);
    BOOST_TEST(emu.core_counter(0, 1, "memory_usage/device_mem") == 0u, "the other core holds nothing");
    app.send("go");

    const auto output = app.expect("output out = ");
    BOOST_TEST(output == "output out = 1.5,4.5,7.5,10.5,13.5,16.5", output);
    app.expect("executed");
    BOOST_TEST(device_mem(emu, "tensors") == tensor_pages);
    BOOST_TEST(device_mem(emu) == model_code + constants + scratchpad + runtime_memory + tensor_pages);
    // The datastore reaches sysfs only when the process releases it.
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/inference_count") == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 0u);
    app.send("go");

    app.expect("unloaded");
    BOOST_TEST(device_mem(emu, "model_code") == 0u);
    BOOST_TEST(device_mem(emu, "constants") == 0u);
    BOOST_TEST(device_mem(emu, "model_shared_scratchpad") == 0u);
    BOOST_TEST(device_mem(emu, "runtime_memory") == 0u);
    BOOST_TEST(device_mem(emu, "tensors") == tensor_pages, "the tensors are still allocated");
    BOOST_TEST(device_mem(emu) == tensor_pages);
    BOOST_TEST(emu.host_category(0, "dma_buffers") == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem", "peak") >=
               model_code + constants + scratchpad + runtime_memory + tensor_pages);
    app.send("go");

    app.expect("freed");
    BOOST_TEST(device_mem(emu, "tensors") == 0u);
    BOOST_TEST(device_mem(emu) == 0u);
    app.send("go");

    app.expect("closed");
    app.send("go");
    app.expect("PASS");
    app.require_exit(0);

    emu.ctl_ok({"status"}); // the emulator has released the process
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "status/success", "present") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/inference_count") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/flop_count") == 2 * macs);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/nc_time_in_use") > 0u);
    for (const auto* failure : {"failure", "invalid_error", "oob_error", "timeout", "hw_error", "generic_error"}) {
        BOOST_TEST(emu.core_counter(0, 0, std::string("status/") + failure) == 0u, failure);
    }
    BOOST_TEST(emu.core_counter(0, 1, "status/success") == 0u, "core 1 ran nothing");
    BOOST_TEST(emu.core_counter(0, 1, "other_info/model_load_count") == 0u);
    BOOST_TEST(device_mem(emu) == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/host_mem") == 0u);
    emu.stop();
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_sequence, diagnostics)

BOOST_AUTO_TEST_CASE(canonical_sequence_from_c) { canonical_sequence("canonical"); }

// The same program compiled as C++17: the headers work from C++.
BOOST_AUTO_TEST_CASE(canonical_sequence_from_cxx) { canonical_sequence("canonical_cxx"); }

// Without --pause the program runs straight through; twice in a row on the
// same instance the counters add up per process (total) and show the last
// process's part (present).
BOOST_AUTO_TEST_CASE(counters_add_up_over_processes) {
    require_mount("this test");
    served_instance emu;
    for (int run = 1; run <= 2; ++run) {
        program app(emu.dir(), "canonical", {.args = {shipped_model("add.yaml")}, .control = emu.control()});
        app.require_exit(0);
        BOOST_TEST(find_line(app.lines(), "PASS") == "PASS");
        emu.ctl_ok({"status"});
        BOOST_TEST(emu.core_counter(0, 0, "status/success") == std::uint64_t(run));
        BOOST_TEST(emu.core_counter(0, 0, "status/success", "present") == 1u);
        BOOST_TEST(emu.core_counter(0, 0, "other_info/flop_count") == 2 * macs * run);
        // Each runtime start resets the cores it takes: once at probe, once per process.
        BOOST_TEST(emu.core_counter(0, 0, "other_info/reset_req_count") == std::uint64_t(1 + run));
    }
    emu.stop();
}

BOOST_AUTO_TEST_SUITE_END()
