#define BOOST_TEST_MODULE shim_api
// The API's edges end to end: the runtime's states with and without an
// emulator to run on, bad arguments into every call, tensor addresses,
// and loading the library with dlopen (its symbol versions).

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

#include <regex>

using namespace neuron::shim::testing;

namespace {

// "PHASE CALL STATUS" lines of the lifecycle program.
std::string status_of(const std::vector<std::string>& lines, const std::string& phase, const std::string& call) {
    const auto line = find_line(lines, phase + " " + call + " ");
    return line.empty() ? "(no line)" : line.substr(line.rfind(' ') + 1);
}

const char* const state_checked_calls[] = {"load",         "tensor_allocate", "tensor_allocate_empty",
                                           "execute",      "execute_repeat",  "debug_connect",
                                           "memory_stats", "is_completed",    "completion_handle"};

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_api, diagnostics)

// No emulator at NEURON_EMU_CONTROL: nrt_init fails with NRT_FAILURE and
// exactly one log line naming the socket it tried; every call before and
// after it returns NRT_UNINITIALIZED (nrt_status.h: "API called outside
// nrt_init/nrt_close"); nothing crashes. Needs no mount.
BOOST_AUTO_TEST_CASE(no_emulator_reachable) {
    temp_dir tmp("shim");
    const auto socket = tmp / "nobody-listens.sock";
    const auto r = run_program(tmp, "lifecycle", {.control = socket});
    BOOST_TEST_REQUIRE(r.status == 0, "lifecycle exited " << r.status << "\n" << r.err);
    BOOST_TEST(find_line(r.lines, "init ") == "init NRT_FAILURE");
    for (const auto* call : state_checked_calls) {
        BOOST_TEST(status_of(r.lines, "before", call) == "NRT_UNINITIALIZED", "before nrt_init: " << call);
        BOOST_TEST(status_of(r.lines, "failed", call) == "NRT_UNINITIALIZED", "after a failed nrt_init: " << call);
    }
    BOOST_TEST(find_line(r.lines, "done") == "done");

    const auto sections = marked_sections(r.err);
    BOOST_TEST_REQUIRE(sections.contains("init"));
    const auto logged = log_lines(sections.at("init"));
    BOOST_TEST_REQUIRE(logged.size() == 1u, "nrt_init logged:\n" << sections.at("init"));
    BOOST_TEST(contains(logged[0], "ERROR"), logged[0]);
    BOOST_TEST(contains(logged[0], "NRT:nrt_init"), logged[0]);
    BOOST_TEST(contains(logged[0], socket), logged[0]);
    BOOST_TEST(sections.at("init") == logged[0] + "\n", "nrt_init printed more than its log line");

    // NEURON_RT_LOG_LEVEL=QUIET: the same calls, no log line at all.
    const auto quiet = run_program(tmp, "lifecycle", {.env = {{"NEURON_RT_LOG_LEVEL", "QUIET"}}, .control = socket});
    BOOST_TEST(quiet.status == 0);
    BOOST_TEST(find_line(quiet.lines, "init ") == "init NRT_FAILURE");
    BOOST_TEST(log_lines(quiet.err).empty(), quiet.err);
}

// With an emulator: after nrt_close every call that needs the runtime
// returns NRT_CLOSED, with handles from before the close too.
BOOST_AUTO_TEST_CASE(calls_after_close) {
    require_mount("this test");
    served_instance emu;
    const auto r = run_program(emu.dir(), "lifecycle", {.control = emu.control()});
    BOOST_TEST_REQUIRE(r.status == 0, "lifecycle exited " << r.status << "\n" << r.err);
    BOOST_TEST(find_line(r.lines, "init ") == "init NRT_SUCCESS");
    BOOST_TEST(find_line(r.lines, "setup connect") == "setup connect NRT_SUCCESS");
    BOOST_TEST(find_line(r.lines, "setup load") == "setup load NRT_SUCCESS");
    BOOST_TEST(find_line(r.lines, "setup tensor") == "setup tensor NRT_SUCCESS");
    BOOST_TEST(find_line(r.lines, "setup schedule") == "setup schedule NRT_SUCCESS");
    for (const auto* call : state_checked_calls) {
        BOOST_TEST(status_of(r.lines, "before", call) == "NRT_UNINITIALIZED", "before nrt_init: " << call);
        BOOST_TEST(status_of(r.lines, "after", call) == "NRT_CLOSED", "after nrt_close: " << call);
    }
    BOOST_TEST(find_line(r.lines, "done") == "done");
    emu.ctl_ok({"status"});
    BOOST_TEST(emu.status()["sessions"].size() == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem") == 0u);
    emu.stop();
}

// nrt_debug_client_read_one_event follows the same states: before nrt_init
// NRT_UNINITIALIZED, and after nrt_close NRT_CLOSED for the stream that
// nrt_close ended (nrt_status.h: "API called outside nrt_init/nrt_close").
BOOST_AUTO_TEST_CASE(debug_read_outside_init_and_close) {
    require_mount("this test");
    served_instance emu;
    const auto r = run_program(emu.dir(), "lifecycle", {.control = emu.control()});
    BOOST_TEST_REQUIRE(r.status == 0, "lifecycle exited " << r.status << "\n" << r.err);
    BOOST_TEST(find_line(r.lines, "setup connect") == "setup connect NRT_SUCCESS");
    BOOST_TEST(status_of(r.lines, "before", "debug_read") == "NRT_UNINITIALIZED");
    // Reading the stream that nrt_close ended:
    BOOST_TEST(status_of(r.lines, "after", "debug_read") == "NRT_CLOSED");
    emu.stop();
}

// The emulator stops under a process that uses it: the calls that need it
// fail (NRT_FAILURE) with a log line, none crashes, and the process ends
// normally.
BOOST_AUTO_TEST_CASE(emulator_stops_under_a_running_process) {
    require_mount("this test");
    served_instance emu;
    program app(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(app.call("connect 0") == "connect 0 NRT_SUCCESS");
    BOOST_TEST(app.call("load add " + shipped_model("add.yaml")) == "load add NRT_SUCCESS vnc=0");
    BOOST_TEST(app.call("alloc add") == "alloc add NRT_SUCCESS");
    BOOST_TEST(app.call("exec add") == "exec add NRT_SUCCESS");
    emu.stop();

    BOOST_TEST(app.call("exec add") == "exec add NRT_FAILURE");
    const auto read = app.call("read 0");
    BOOST_TEST((read == "read 0 NRT_FAILURE" || read == "read 0 NRT_QUEUE_EMPTY"), read);
    BOOST_TEST(app.call("load other " + shipped_model("add.yaml")) == "load other NRT_FAILURE vnc=-1");
    BOOST_TEST(app.call("unload add") == "unload add NRT_FAILURE");
    BOOST_TEST(app.call("close") == "close done");
    BOOST_TEST(app.call("quit") == "quit");
    app.require_exit(0);
    const auto logged = log_lines(app.err());
    BOOST_TEST(!logged.empty());
    for (const auto& l : logged) BOOST_TEST(contains(l, "ERROR"), l);
}

// nrt_get_vnc_memory_stats counts the device tensors of the current
// nrt_init. Tensors left from before an nrt_close + nrt_init belong to no
// session; freeing them later must not change (or wrap) the new count.
BOOST_AUTO_TEST_CASE(memory_stats_across_close_and_init) {
    require_mount("this test");
    served_instance emu;
    program app(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    const auto empty = app.call("memstats 0");
    BOOST_TEST(field(empty, "used") == "0", empty);
    BOOST_TEST(app.call("load add " + shipped_model("add.yaml")) == "load add NRT_SUCCESS vnc=0");
    BOOST_TEST(app.call("alloc add") == "alloc add NRT_SUCCESS");
    const auto held = app.call("memstats 0");
    BOOST_TEST(held.starts_with("memstats 0 NRT_SUCCESS"), held);
    BOOST_TEST(field(held, "used") == "72", "three tensors of 24 bytes: " << held);

    BOOST_TEST(app.call("close") == "close done");
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    const auto fresh = app.call("memstats 0");
    BOOST_TEST(field(fresh, "used") == "0", fresh);
    app.call("unload add"); // frees the tensors of the first session
    const auto after = app.call("memstats 0");
    BOOST_TEST(field(after, "used") == "0", after);
    BOOST_TEST(app.call("quit") == "quit");
    app.require_exit(0);
    emu.stop();
}

// NULL pointers and bad sizes into every call: the expected status (mostly
// NRT_INVALID), a log line for each NRT_INVALID, and for malformed model
// files a line that says where: "model:LINE:COLUMN".
BOOST_AUTO_TEST_CASE(bad_input_into_every_call) {
    require_mount("this test");
    served_instance emu;
    const auto r = run_program(
        emu.dir(), "bad_input",
        {.args = {shipped_model("add.yaml")}, .env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(r.status == 0, "bad_input exited " << r.status);
    for (const auto& l : r.lines) BOOST_TEST(!l.starts_with("FAIL"), l);
    BOOST_TEST(find_line(r.lines, "checks ").ends_with(" failed 0"));

    const auto sections = marked_sections(r.err);
    std::size_t invalid = 0;
    for (const auto& l : r.lines) {
        if (!l.ends_with(" NRT_INVALID") || l.starts_with("FAIL")) continue;
        ++invalid;
        const auto name = l.substr(0, l.find(' '));
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST_REQUIRE(sections.contains(name));
            const auto logged = log_lines(sections.at(name));
            BOOST_TEST(logged.size() == 1u, "NRT_INVALID with " << logged.size() << " log lines:\n"
                                                                << sections.at(name));
            for (const auto& line : logged) BOOST_TEST(contains(line, "ERROR"), line);
        }
    }
    BOOST_TEST(invalid > 60u);

    const auto logged = [&](const std::string& name) {
        return sections.contains(name) ? sections.at(name) : std::string("(no section " + name + ")");
    };
    BOOST_TEST(contains(logged("load_zero_bytes"), "NRT:nrt_load"), logged("load_zero_bytes"));
    BOOST_TEST(contains(logged("load_binary_blob"), "NRT:nrt_load"), logged("load_binary_blob"));
    BOOST_TEST(contains(logged("load_binary_blob"), "neither a NEFF nor an emulated model file"),
               logged("load_binary_blob"));
    BOOST_TEST(contains(logged("load_too_large"), "the emulator loads at most 4 GiB"), logged("load_too_large"));
    BOOST_TEST(contains(logged("load_not_a_model"), "neither a NEFF nor an emulated model file"),
               logged("load_not_a_model"));
    BOOST_TEST(contains(logged("load_wrong_type"), "model:4:11: "), logged("load_wrong_type"));
    BOOST_TEST(contains(logged("load_unknown_key"), "model:3:1: "), logged("load_unknown_key"));
    BOOST_TEST(contains(logged("load_unknown_key"), "inputz"), logged("load_unknown_key"));
    BOOST_TEST(contains(logged("load_bad_dtype"), "model:4:22: "), logged("load_bad_dtype"));
    BOOST_TEST(contains(logged("load_bad_dtype"), "float33"), logged("load_bad_dtype"));
    BOOST_TEST(contains(logged("exec_input_wrong_size"), "NRT:nrt_execute"), logged("exec_input_wrong_size"));
    BOOST_TEST(contains(logged("exec_missing_input"), "'b'"), logged("exec_missing_input"));
    BOOST_TEST(contains(logged("read_past_end"), "NRT:nrt_tensor_read"), logged("read_past_end"));

    // One model loaded and one execution succeeded among all the refusals.
    emu.ctl_ok({"status"});
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 1u);
    emu.stop();
}

// Enum arguments outside their named values are valid C (C11 6.7.2.2: a C
// enum holds any value of its integer type); the shim refuses them like any
// bad argument, without undefined behaviour on its C++ side (this build's
// UBSan checks that).
BOOST_AUTO_TEST_CASE(enum_arguments_out_of_range) {
    require_mount("this test");
    served_instance emu;
    const auto r = run_program(emu.dir(), "bad_input",
                               {.args = {shipped_model("add.yaml"), "--enums"},
                                .env = {{"NEURON_RT_VISIBLE_CORES", "0"}},
                                .control = emu.control()});
    BOOST_TEST(r.status == 0, "bad_input --enums exited " << r.status << "\n" << r.err);
    BOOST_TEST(find_line(r.lines, "init_bad_framework") == "init_bad_framework NRT_INVALID");
    BOOST_TEST(find_line(r.lines, "alloc_bad_placement") == "alloc_bad_placement NRT_INVALID");
    BOOST_TEST(find_line(r.lines, "checks ") == "checks 3 failed 0");
    emu.stop();
}

// nrt_tensor_get_va: distinct, stable, non-NULL and covering the tensor;
// slices inside their source; attached buffers are the caller's.
BOOST_AUTO_TEST_CASE(tensor_addresses) {
    require_mount("this test");
    served_instance emu;
    const auto r =
        run_program(emu.dir(), "tensor_va", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(r.status == 0, "tensor_va exited " << r.status);
    for (const auto& l : r.lines) BOOST_TEST(!l.starts_with("FAIL"), l);
    BOOST_TEST(find_line(r.lines, "checks ").ends_with(" failed 0"));
    BOOST_TEST(log_lines(r.err).size() == 1u, "one expected log line (a slice past its end):\n" << r.err);
    emu.stop();
}

// dlopen("libnrt.so.1"), dlsym and dlvsym(..., "NRT_2.0.0"). Needs no mount.
BOOST_AUTO_TEST_CASE(dlopen_and_symbol_versions) {
    temp_dir tmp("shim");
    const auto r = run_program(tmp, "dlopen_check", {.control = tmp / "nobody-listens.sock"});
    BOOST_TEST(r.status == 0, "dlopen_check exited " << r.status);
    for (const auto& l : r.lines) BOOST_TEST(!l.starts_with("FAIL"), l);
    BOOST_TEST(find_line(r.lines, "checks ").ends_with(" failed 0"));
}

BOOST_AUTO_TEST_SUITE_END()
