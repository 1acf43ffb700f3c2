#define BOOST_TEST_MODULE shim_faults
// Failing executions end to end: a model file's fault trigger, and an
// uncorrected HBM error injected while an execution runs. The status
// counters reach sysfs only when the process releases its datastore
// (driver-sysfs.md §3: at exit, however it exits), never per execution.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

#include <csignal>
#include <fstream>
#include <sys/wait.h>

using namespace neuron::shim::testing;

namespace {

const char* const status_dirs[] = {"success",         "failure",        "invalid_error",
                                   "oob_error",       "timeout",        "hw_error",
                                   "hw_hbm_ue_error", "hw_nc_ue_error", "hw_repairable_hbm_ue_error"};

// "success=0 failure=0 ..." for neuron0/neuron_core0/stats/status/*/total.
std::string status_totals(served_instance& emu, const std::map<std::string, std::uint64_t>& expected = {}) {
    std::string out;
    for (const auto* d : status_dirs) {
        const auto value = expected.empty() ? emu.core_counter(0, 0, std::string("status/") + d)
                                            : (expected.contains(d) ? expected.at(d) : 0);
        out += std::string(out.empty() ? "" : " ") + d + "=" + std::to_string(value);
    }
    return out;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_faults, diagnostics)

// faulty.yaml returns NRT_EXEC_OOB on its 2nd execution. While the process
// lives nothing shows in status/; after it aborts, success and oob_error
// count one each.
BOOST_AUTO_TEST_CASE(status_counters_change_only_when_the_process_ends_even_by_abort) {
    require_mount("this test");
    served_instance emu;
    const auto before = status_totals(emu);
    BOOST_TEST(before == status_totals(emu, {{"success", 0}}));

    program app(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(app.call("load f " + model_path("faulty.yaml")) == "load f NRT_SUCCESS vnc=0");
    BOOST_TEST(app.call("alloc f") == "alloc f NRT_SUCCESS");
    BOOST_TEST(app.call("exec f") == "exec f NRT_SUCCESS");
    BOOST_TEST(app.call("exec f") == "exec f NRT_EXEC_OOB");
    BOOST_TEST(app.call("outputs f") == "outputs f out=300,302,304,306,308,310",
               "the first, successful execution filled the output");

    emu.ctl_ok({"status"});
    BOOST_TEST(status_totals(emu) == before, "status/ changed while the process lives");
    BOOST_TEST(emu.core_counter(0, 0, "other_info/inference_count") == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem/model_code") == 65536u);

    app.send("abort");
    const int status = app.finish();
    BOOST_TEST(WIFSIGNALED(status));
    BOOST_TEST((WIFSIGNALED(status) ? WTERMSIG(status) : 0) == SIGABRT);

    emu.ctl_ok({"status"});
    BOOST_TEST(status_totals(emu) == status_totals(emu, {{"success", 1}, {"oob_error", 1}}));
    BOOST_TEST(emu.core_counter(0, 0, "status/oob_error", "present") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/inference_count") == 1u, "only the successful execution counts");
    BOOST_TEST(emu.core_counter(0, 0, "other_info/flop_count") == 24u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem") == 0u, "the dead process's memory is freed");
    BOOST_TEST(emu.status()["sessions"].size() == 0u);
    emu.stop();
}

// A load that fails counts too (MODEL_FILE.md): invalid_error for a
// malformed model file, resource_error when its memory does not fit on the
// device; neither counts model_load_count, nor holds memory afterwards.
BOOST_AUTO_TEST_CASE(failed_loads_count_at_exit) {
    require_mount("this test");
    served_instance emu;
    const auto huge = emu.dir() / "huge.yaml";
    const auto broken = emu.dir() / "broken.yaml";
    std::ofstream(huge) << "neuron_emu_model: 1\nname: huge\nmemory:\n  model_code: 68719476736\n";
    std::ofstream(broken) << "neuron_emu_model: 1\nname: broken\nwork:\n  tensor: 10\n  vectr: 5\n";

    program app(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(app.call("load h " + huge) == "load h NRT_RESOURCE vnc=-1");
    BOOST_TEST(app.call("load b " + broken) == "load b NRT_INVALID vnc=-1");
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem") == 0u, "a refused load holds nothing");
    BOOST_TEST(emu.core_counter(0, 0, "status/resource_error") == 0u);
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);

    const auto logged = log_lines(app.err());
    BOOST_TEST_REQUIRE(logged.size() == 2u, app.err());
    BOOST_TEST(contains(logged[1], "model:5:3: "), logged[1]);
    BOOST_TEST(contains(logged[1], "vector"), "the closest key is suggested: " << logged[1]);

    emu.ctl_ok({"status"});
    BOOST_TEST(emu.core_counter(0, 0, "status/resource_error") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "status/invalid_error") == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/model_load_count") == 0u);
    BOOST_TEST(emu.core_counter(0, 0, "memory_usage/device_mem", "peak") == 0u);
    emu.stop();
}

// Stepped time: an execution lasts until `ctl advance` moves time past its
// end, so the test decides what happens while it runs. An uncorrected
// memory error injected meanwhile fails it (MODEL_FILE.md; nrt-api.md §1.2:
// HBM -> 1201, repairable HBM -> 1205, SRAM -> 1202), counted in its
// status directory once the process exits; executions before and after it
// succeed. On trn2 logical core 0 (LNC 2) is physical cores 0 and 1 and
// counts on core 0.
void error_during_an_execution(const std::string& kind, const std::string& status, const std::string& counter,
                               const std::string& hardware_file, const std::string& instance = "trn1.2xlarge") {
    require_mount("this test");
    served_instance emu({.instance = instance, .time = "stepped"});
    program app(emu.dir(), "session", {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    BOOST_TEST(app.call("load add " + shipped_model("add.yaml")) == "load add NRT_SUCCESS vnc=0");
    BOOST_TEST(app.call("alloc add") == "alloc add NRT_SUCCESS");

    // A first execution, undisturbed, completes when time passes its end.
    app.send("exec add");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    BOOST_TEST(app.expect("exec add") == "exec add NRT_SUCCESS");

    // The second: started, then the error, then its end.
    app.send("exec add");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "1"});
    BOOST_TEST(wait_until_waiting_for_answer(app.pid()), "nrt_execute returned before its end");
    BOOST_TEST(emu.ctl_ok({"inject-ecc", "--device", "0", "--kind", kind}) ==
               "neuron0: injected 1 " + kind + " error\n");
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    BOOST_TEST(app.expect("exec add") == "exec add " + status);

    // The error stays in the past: the next execution succeeds.
    app.send("exec add");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    BOOST_TEST(app.expect("exec add") == "exec add NRT_SUCCESS");

    BOOST_TEST(emu.core_counter(0, 0, "status/" + counter) == 0u, "counted before the process ended");
    BOOST_TEST(emu.read("neuron0/stats/hardware/" + hardware_file) == "1\n");
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);

    emu.ctl_ok({"status"});
    BOOST_TEST(emu.core_counter(0, 0, "status/" + counter) == 1u);
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 2u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/inference_count") == 2u);
    BOOST_TEST(emu.core_counter(0, 0, "other_info/flop_count") == 48u);
    emu.stop();
}

BOOST_AUTO_TEST_CASE(hbm_error_during_an_execution) {
    error_during_an_execution("hbm", "NRT_EXEC_HW_ERR_HBM_UE", "hw_hbm_ue_error", "mem_ecc_uncorrected");
}

BOOST_AUTO_TEST_CASE(repairable_hbm_error_during_an_execution) {
    error_during_an_execution("hbm-repairable", "NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE", "hw_repairable_hbm_ue_error",
                              "mem_ecc_repairable_uncorrected", "trn2.3xlarge"); // Trainium1 has no HBM repair
}

BOOST_AUTO_TEST_CASE(sram_error_during_an_execution) {
    error_during_an_execution("sram", "NRT_EXEC_HW_ERR_NC_UE", "hw_nc_ue_error", "sram_ecc_uncorrected");
}

// A hardware error's status comes with the runtime's own log line
// (nrt-api.md §1.2 "Hardware-error behaviours"), naming where the model ran:
// on trn1.32xlarge (two cores a device) logical core 3 is device 1, core 1.
// Each case loads a model whose first execution the status strikes.
struct struck_execution {
    std::string status;
    std::string line; // after "ERROR  "; {} is the model's id
};

void expect_logged(served_instance& emu, program& app, const std::string& name, const struck_execution& c,
                   bool stepped) {
    BOOST_TEST_CONTEXT(c.status) {
        const auto path = emu.dir() / (name + ".yaml");
        std::ofstream(path) << "neuron_emu_model: 1\nname: struck\nwork: {tensor: 2800}\nfaults:\n"
                            << "  - {status: " << c.status << ", on_execution: 1}\n";
        BOOST_TEST_REQUIRE(app.call("load " + name + " " + path) == "load " + name + " NRT_SUCCESS vnc=0");
        BOOST_TEST_REQUIRE(app.call("alloc " + name) == "alloc " + name + " NRT_SUCCESS");
        const auto model_id = emu.status()["sessions"][0]["models"][0].as<std::string>();
        app.send("exec " + name);
        if (stepped) {
            BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
            emu.ctl_ok({"advance", "--ns", "40000000000"}); // past the runtime's 30 s wait
        }
        BOOST_TEST(app.expect("exec " + name) == "exec " + name + " " + c.status);
        auto line = c.line;
        if (const auto at = line.find("{}"); at != std::string::npos) line.replace(at, 2, model_id);
        BOOST_TEST(contains(app.err(), " ERROR  " + line), app.err());
        BOOST_TEST_REQUIRE(app.call("unload " + name) == "unload " + name + " NRT_SUCCESS");
    }
}

program_options on_logical_core_3(const served_instance& emu) {
    return {.env = {{"NEURON_RT_VISIBLE_CORES", "3"}, {"NEURON_RT_LOG_LEVEL", "ERROR"}}, .control = emu.control()};
}

BOOST_AUTO_TEST_CASE(a_hardware_error_logs_the_runtimes_line) {
    require_mount("this test");
    const struck_execution cases[] = {
        {"NRT_EXEC_HW_ERR_NC_UE", "NRT:nrt_execute  (FATAL-RT-UNDEFINED-STATE) [ND 1][NC 1] Uncorrectable memory error "
                                  "is detected, metadata: 0x16.\n"},
        {"NRT_EXEC_HW_ERR_HBM_UE", "NRT:nrt_execute  Uncorrectable HBM memory error is detected. Execution results may "
                                   "be invalid. Please terminate this instance\n"},
        {"NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE", "NRT:nrt_execute  Uncorrectable HBM memory error is detected. Execution "
                                              "results may be invalid. Please reload the neuron driver or reboot\n"},
        {"NRT_EXEC_HW_ERR_DMA_ABORT", "NRT:nrt_execute  [MLA 1][NC 1] DMA TX engine 0 is in an abort state\n"},
        {"NRT_EXEC_OOB",
         "TDRV:generate_custom_notification_msg  nd1:nc1:h_model.id{}: Received notification generated "
         "at runtime: failed to run scatter/gather (indirect memory copy), due to out-of-bound access.\n"},
        {"NRT_EXEC_SW_NQ_OVERFLOW", "NRT:nrt_infodump  Failure: NRT_EXEC_SW_NQ_OVERFLOW in nrt_execute()\n"},
    };
    served_instance emu({.instance = "trn1.32xlarge"});
    program app(emu.dir(), "session", on_logical_core_3(emu));
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    for (std::size_t i = 0; i < std::size(cases); ++i)
        expect_logged(emu, app, "m" + std::to_string(i), cases[i], false);
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);
    emu.stop();
}

// The collectives hang ends when the runtime stops waiting, 30 s on: in
// stepped time the case moves time past that.
BOOST_AUTO_TEST_CASE(a_collectives_hang_logs_the_runtimes_line) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge", .time = "stepped"});
    program app(emu.dir(), "session", on_logical_core_3(emu));
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    expect_logged(emu, app, "hang",
                  {"NRT_EXEC_HW_ERR_COLLECTIVES",
                   "NRT:nrt_execute  missing collectives status on Neuron Device 1 NC "
                   "1, model 0 - suspected hang in collectives operation 0 out of 100\n"},
                  true);
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);
    emu.stop();
}

BOOST_AUTO_TEST_CASE(a_collectives_hang_ends_when_neuron_rt_exec_timeout_runs_out) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge", .time = "stepped"});
    auto options = on_logical_core_3(emu);
    options.env["NEURON_RT_EXEC_TIMEOUT"] = "2"; // read when the model loads
    program app(emu.dir(), "session", options);
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    const auto path = emu.dir() / "hang.yaml";
    std::ofstream(path) << "neuron_emu_model: 1\nname: hang\nwork: {tensor: 2800}\nfaults:\n"
                        << "  - {status: NRT_EXEC_HW_ERR_COLLECTIVES, on_execution: 1}\n";
    BOOST_TEST_REQUIRE(app.call("load hang " + path) == "load hang NRT_SUCCESS vnc=0");
    BOOST_TEST_REQUIRE(app.call("alloc hang") == "alloc hang NRT_SUCCESS");
    app.send("exec hang");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "2000000000"}); // 2 s, not the default 30
    BOOST_TEST(app.expect("exec hang") == "exec hang NRT_EXEC_HW_ERR_COLLECTIVES");
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);
    emu.stop();
}

// A model declaring the most work a model file may (2^50 tensor cycles, 4.6
// days at 2.8 GHz): the runtime gives up on it when
// NEURON_RT_EXEC_TIMEOUT runs out (NRT_TIMEOUT and a line naming where it
// ran), and the core runs the next execution.
BOOST_AUTO_TEST_CASE(a_long_execution_ends_with_nrt_timeout_when_neuron_rt_exec_timeout_runs_out) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge", .time = "stepped"});
    auto options = on_logical_core_3(emu);
    options.env["NEURON_RT_EXEC_TIMEOUT"] = "2";
    program app(emu.dir(), "session", options);
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    const auto huge = emu.dir() / "huge.yaml";
    std::ofstream(huge) << "neuron_emu_model: 1\nname: huge\nwork: {tensor: 1125899906842624}\n";
    const auto quick = emu.dir() / "quick.yaml";
    std::ofstream(quick) << "neuron_emu_model: 1\nname: quick\nwork: {tensor: 2800}\n";
    for (const auto& [name, path] : {std::pair{"huge", huge}, std::pair{"quick", quick}}) {
        BOOST_TEST_REQUIRE(app.call(std::string("load ") + name + " " + path) ==
                           std::string("load ") + name + " NRT_SUCCESS vnc=0");
        BOOST_TEST_REQUIRE(app.call(std::string("alloc ") + name) == std::string("alloc ") + name + " NRT_SUCCESS");
    }
    const auto model_id = emu.status()["sessions"][0]["models"][0].as<std::string>();
    app.send("exec huge");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "1999999999"});
    BOOST_TEST(wait_until_waiting_for_answer(app.pid()), "nrt_execute returned before the timeout");
    emu.ctl_ok({"advance", "--ns", "1"});
    BOOST_TEST(app.expect("exec huge") == "exec huge NRT_TIMEOUT");
    BOOST_TEST(contains(app.err(), " ERROR  NRT:nrt_execute  [ND 1][NC 1] execution of model id " + model_id +
                                       " did not complete within NEURON_RT_EXEC_TIMEOUT\n"),
               app.err());
    app.send("exec quick");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(app.pid()), "nrt_execute never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "1000000"});
    BOOST_TEST(app.expect("exec quick") == "exec quick NRT_SUCCESS");
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);
    emu.stop();
}

BOOST_AUTO_TEST_CASE(a_neuron_rt_exec_timeout_that_is_not_whole_seconds_is_logged_and_ignored) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});
    auto options = on_logical_core_3(emu);
    options.env["NEURON_RT_EXEC_TIMEOUT"] = "2.5";
    program app(emu.dir(), "session", options);
    BOOST_TEST(app.call("init") == "init NRT_SUCCESS visible=1");
    const auto path = emu.dir() / "plain.yaml";
    std::ofstream(path) << "neuron_emu_model: 1\nname: plain\nwork: {tensor: 2800}\n";
    BOOST_TEST_REQUIRE(app.call("load plain " + path) == "load plain NRT_SUCCESS vnc=0");
    BOOST_TEST(contains(app.err(), " ERROR  NRT:nrt_load  NEURON_RT_EXEC_TIMEOUT is not a whole number of seconds"),
               app.err());
    BOOST_TEST(app.call("exit") == "exit");
    app.require_exit(0);
    emu.stop();
}

BOOST_AUTO_TEST_SUITE_END()
