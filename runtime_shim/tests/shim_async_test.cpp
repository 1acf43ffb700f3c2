#define BOOST_TEST_MODULE shim_async
// The asynchronous API, collectives, send/receive and the runtime's other
// extras end to end, through C programs against a served emulator:
// executions scheduled on execution units complete in simulated time with
// nrt_execute's statuses and counters; processes meet for barriers,
// all-gathers and transfers; a rank that never comes ends the others' wait
// in the collectives-hang status; absent hardware says so.

#include "support/shim_harness.h"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <tuple>
#include <vector>

using namespace neuron::shim::testing;

namespace {

// The self-checking programs end with "checks N failed F".
void require_all_checks_pass(program& app, const std::string& who) {
    const auto summary = app.until("checks ");
    for (const auto& line : app.lines()) BOOST_TEST(line.rfind("FAIL", 0) != 0, who << ": " << line);
    BOOST_TEST(contains(summary, " failed 0"), who << ": " << summary);
    app.require_exit(0);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(shim_async, diagnostics)

// Stepped time: nothing scheduled completes until the test moves time; then
// everything does, in order, with the sums the model's rule gives. The 3.0
// form writes its status at completion. A DMA abort fails one execution:
// the error tracker lists it, the compute unit refuses more work, and sysfs
// counts 5 successes and the abort, as nrt_execute would.
BOOST_AUTO_TEST_CASE(scheduled_executions_complete_in_simulated_time) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge", .time = "stepped"});
    program app(
        emu.dir(), "async_exec",
        {.args = {model_path("dma_add.yaml")}, .env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    for (const char* pause : {"advance", "advance", "inject", "advance"}) {
        const auto line = app.until(pause);
        BOOST_TEST_REQUIRE(line == pause, "the program said " << line);
        if (std::string(pause) == "inject") {
            emu.ctl_ok({"inject-fault", "--device", "0", "--core", "0", "--kind", "dma_abort"});
        } else {
            emu.ctl_ok({"advance", "--ns", "1000000000"});
        }
        app.send("go");
    }
    require_all_checks_pass(app, "async_exec");
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 4u);
    BOOST_TEST(emu.core_counter(0, 0, "status/hw_dma_abort_error") == 1u);
}

// Two processes of one job, one core each: barrier, all-gather, the three
// nrta_cc collectives and a tensor sent from core 0 to core 1.
BOOST_AUTO_TEST_CASE(two_processes_meet_in_collectives_and_transfers) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge"});
    program rank0(emu.dir(), "collectives",
                  {.args = {"0", "2", "1"},
                   .env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_RT_ROOT_COMM_ID", "127.0.0.1:5000"}},
                   .control = emu.control()});
    program rank1(emu.dir(), "collectives",
                  {.args = {"1", "2", "0"},
                   .env = {{"NEURON_RT_VISIBLE_CORES", "1"}, {"NEURON_RT_ROOT_COMM_ID", "127.0.0.1:5000"}},
                   .control = emu.control()});
    require_all_checks_pass(rank0, "rank 0");
    require_all_checks_pass(rank1, "rank 1");
}

// Without NEURON_RT_ROOT_COMM_ID ("mandatory for collective workloads")
// there is no job: two unrelated processes of two workers each are refused
// every collective, with the reason, rather than paired in arrival order
// to swap each other's data.
BOOST_AUTO_TEST_CASE(without_a_root_comm_id_unrelated_processes_never_meet) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge"});
    program first(emu.dir(), "collectives",
                  {.args = {"noroot", "0", "2"}, .env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()});
    program second(emu.dir(), "collectives",
                   {.args = {"noroot", "1", "2"}, .env = {{"NEURON_RT_VISIBLE_CORES", "1"}}, .control = emu.control()});
    for (auto* p : {&first, &second}) {
        BOOST_TEST(p->expect("noroot") == "noroot build 2 barrier 2 all_gather 2 prepare 2");
        p->require_exit(0);
        const auto logged = log_lines(p->err());
        BOOST_TEST_REQUIRE(logged.size() == 4u, p->err());
        for (const auto& line : logged) {
            BOOST_TEST(contains(line, "NEURON_RT_ROOT_COMM_ID is not set: a collective among 2 workers needs it"),
                       line);
        }
    }
}

// Two jobs of two ranks on one instance, named by NEURON_RT_ROOT_COMM_ID:
// each meets only its own ranks (each rank checks its job in what it
// gathers), large all-gathers and transfers included.
BOOST_AUTO_TEST_CASE(two_jobs_on_one_instance_keep_to_themselves) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.32xlarge"});
    std::vector<std::unique_ptr<program>> ranks;
    for (const auto& [core, rank, peer, root] :
         std::vector<std::tuple<int, int, int, std::string>>{{0, 0, 1, "127.0.0.1:5001"},
                                                             {2, 0, 3, "127.0.0.1:5002"},
                                                             {1, 1, 0, "127.0.0.1:5001"},
                                                             {3, 1, 2, "127.0.0.1:5002"}}) {
        ranks.push_back(
            std::make_unique<program>(emu.dir(), "collectives",
                                      program_options{.args = {std::to_string(rank), "2", std::to_string(peer)},
                                                      .env = {{"NEURON_RT_VISIBLE_CORES", std::to_string(core)},
                                                              {"NEURON_RT_ROOT_COMM_ID", root}},
                                                      .control = emu.control()}));
    }
    for (auto& r : ranks) require_all_checks_pass(*r, r->label());
}

// A barrier for two that only one process joins waits until the runtime's
// timeout (30 s of simulated time), then fails with the collectives-hang
// status and the runtime's log line.
BOOST_AUTO_TEST_CASE(a_rank_that_never_arrives_ends_in_the_collectives_hang_status) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge", .time = "stepped"});
    program alone(emu.dir(), "collectives",
                  {.args = {"alone", "2"},
                   .env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_RT_ROOT_COMM_ID", "127.0.0.1:5000"}},
                   .control = emu.control()});
    // Not while nrt_init waits for its answers: the barrier's must have reached the emulator.
    BOOST_TEST_REQUIRE(alone.expect("joining") == "joining");
    BOOST_TEST_REQUIRE(wait_until_waiting_for_answer(alone.pid()), "nrt_barrier never waited for the emulator");
    emu.ctl_ok({"advance", "--ns", "29999999999"});
    BOOST_TEST(wait_until_waiting_for_answer(alone.pid()), "nrt_barrier returned before the timeout");
    emu.ctl_ok({"advance", "--ns", "1"});
    BOOST_TEST(alone.expect("barrier") == "barrier 1200");
    alone.require_exit(0);
    const auto logged = log_lines(alone.err());
    BOOST_TEST_REQUIRE(logged.size() == 1u, alone.err());
    BOOST_TEST(contains(logged[0], "NRT:nrt_barrier"), logged[0]);
    BOOST_TEST(contains(logged[0], "missing collectives status on Neuron Device 0 NC 0"), logged[0]);
}

// Mapped HBM, nrt_memcpy_to_device, device ids, absent hardware reported
// as absent, microcode only before nrt_init, one-worker collectives, the
// send/receive limits, tracing kept but no file written.
BOOST_AUTO_TEST_CASE(memory_queries_and_absent_hardware) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge"});
    program app(emu.dir(), "runtime_extras",
                {.env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_RT_LOG_LEVEL", "WARN"}}, .control = emu.control()});
    require_all_checks_pass(app, "runtime_extras");
    for (const char* absent : {"NRT:nrt_get_dmabuf_fd  no EFA device", "NRT:nrt_get_attached_efa_bdf  no EFA device",
                               "NRT:nrt_get_libnccl_net  neuron-emu has no collectives network plugin",
                               "NRT:nrt_trace_stop  neuron-emu does not write this file"}) {
        BOOST_TEST(contains(app.err(), absent), "no log line " << absent << " in\n" << app.err());
    }
}

// NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=2: nrt_execute queues, the
// third in flight is refused, the callback hears both once time moved.
BOOST_AUTO_TEST_CASE(the_implicit_async_mode_queues_executions) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge", .time = "stepped"});
    program app(emu.dir(), "runtime_extras",
                {.args = {"implicit", model_path("dma_add.yaml")},
                 .env = {{"NEURON_RT_VISIBLE_CORES", "0"}, {"NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "2"}},
                 .control = emu.control()});
    BOOST_TEST_REQUIRE(app.until("advance") == "advance");
    emu.ctl_ok({"advance", "--ns", "1000000000"});
    app.send("go");
    require_all_checks_pass(app, "runtime_extras implicit");
    BOOST_TEST(emu.core_counter(0, 0, "status/success") == 2u);
}

// A caller that retries a refusal in a loop does not flood the log: 1000
// refusals of a full execution unit, then of a full implicit queue, log one
// line a second (and the refusals take well under a second each).
BOOST_AUTO_TEST_CASE(queue_full_refusals_are_logged_at_most_once_a_second) {
    require_mount("this test");
    served_instance emu({.instance = "trn1.2xlarge", .time = "stepped"});
    for (const auto& [mode, line] : std::vector<std::pair<std::string, std::string>>{
             {"", "the execution unit's queue is full"}, {"implicit", "executions are already in flight"}}) {
        program_options options{
            .args = {model_path("dma_add.yaml")}, .env = {{"NEURON_RT_VISIBLE_CORES", "0"}}, .control = emu.control()};
        if (!mode.empty()) {
            options.args.push_back(mode);
            options.env.emplace("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS", "1");
        }
        program app(emu.dir(), "queue_full", options);
        const auto refused = app.until("refused ");
        BOOST_TEST_REQUIRE(app.until("advance") == "advance");
        emu.ctl_ok({"advance", "--ns", "1000000000"});
        app.send("go");
        require_all_checks_pass(app, "queue_full " + mode);
        const auto ms = std::stoll(refused.substr(refused.find(" in ") + 4));
        std::size_t logged = 0;
        for (const auto& l : log_lines(app.err())) logged += contains(l, line) ? 1 : 0;
        BOOST_TEST(logged >= 1u, app.err());
        BOOST_TEST(logged <= static_cast<std::size_t>(ms / 1000 + 1), logged << " lines in " << ms << " ms");
    }
}

BOOST_AUTO_TEST_SUITE_END()
