#define BOOST_TEST_MODULE execution_unit
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/activity.h"
#include "neuron/model/state/ecc.h"
#include "sim_helpers.h"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <vector>

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

struct results {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> done; // (completion time ns, status)
};

// `duration` of tensor-engine work with 1000 MACs.
execution_request job(owner_id owner, std::uint32_t core, std::chrono::nanoseconds duration) {
    auto work = std::make_shared<program>();
    instruction matmul;
    matmul.busy_ps = static_cast<std::uint64_t>(duration.count()) * 1000;
    matmul.macs = 1000;
    matmul.row_groups = 1; // a 32-row contraction
    matmul.weight_load_ps = static_cast<std::uint32_t>(matmul.busy_ps / 4);
    work->streams[static_cast<std::size_t>(engine_kind::tensor)].push_back(matmul);
    execution_request r;
    r.owner = owner;
    r.device = 0;
    r.cores = {core};
    r.work = std::move(work);
    return r;
}

void submit(simulation& sim, execution_request request, results& out) {
    sim.call([&out, request = std::move(request)](platform& p) mutable {
        p.executions().submit(std::move(request), [&out](const execution_result& result) {
            out.done.emplace_back(static_cast<std::uint64_t>(sc_core::sc_time_stamp().value() / 1000), result.status);
        });
    });
}

owner_id session(simulation& sim) {
    return sim.call([](platform& p) { return p.owners().open("test"); });
}

} // namespace

BOOST_AUTO_TEST_CASE(an_execution_completes_after_its_duration_in_simulated_time) {
    simulation sim(stepped("trn1.2xlarge"));
    results r;
    submit(sim, job(session(sim), 0, 300us), r);
    sim.advance(300us - 1ns);
    BOOST_TEST(r.done.empty());
    sim.advance(1ns);
    BOOST_TEST(r.done.size() == 1u);
    BOOST_TEST(r.done[0].first == 300'000u);
    BOOST_TEST(r.done[0].second == nrt_status::success);
}

BOOST_AUTO_TEST_CASE(executions_on_one_core_run_one_after_another_and_other_cores_in_parallel) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 0, 100us), r);
    submit(sim, job(owner, 0, 100us), r);
    submit(sim, job(owner, 1, 100us), r);
    sim.advance(1ms);
    BOOST_TEST(r.done.size() == 3u);
    BOOST_TEST(r.done[0].first == 100'000u);
    BOOST_TEST(r.done[1].first == 100'000u); // core 1, in parallel
    BOOST_TEST(r.done[2].first == 200'000u); // second on core 0, queued behind the first
}

BOOST_AUTO_TEST_CASE(counts_reach_sysfs_only_when_the_owner_is_released) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 1, 2500us), r);
    sim.advance(3ms);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::success).total == 0u);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::success).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::inference_count).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::flop_count).total == 2000u);
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::nc_time_in_use).total == 2500u);
}

// PE counters are hardware counters: they count as the tensor engine runs,
// whoever owns the core, and what has run of a stretch counts mid-way.
BOOST_AUTO_TEST_CASE(pe_counters_count_while_the_tensor_engine_runs) {
    simulation sim(stepped("trn1.2xlarge")); // 1.4 GHz
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 1, 2500us), r);
    sim.advance(1ms);
    auto rows = read_pe_counters(sim.published(), 0, 1);
    BOOST_TEST_REQUIRE(rows.size() == 4u);
    BOOST_TEST(rows[0].matmul_active == 1'400'000u); // 1 ms of the 2.5 ms matmul
    BOOST_TEST(rows[0].weight_load_active == 350'000u);
    BOOST_TEST(rows[0].idle == 0u);
    BOOST_TEST(rows[1].matmul_active == 0u); // rows it did not use
    BOOST_TEST(rows[1].idle == 1'400'000u);
    sim.advance(2ms);
    rows = read_pe_counters(sim.published(), 0, 1);
    BOOST_TEST(rows[0].matmul_active == 3'500'000u);
    BOOST_TEST(rows[0].weight_load_active == 875'000u);
    BOOST_TEST(rows[0].idle == 700'000u); // 3 ms of cycles, 2.5 ms of them multiplying
    BOOST_TEST(read_pe_counters(sim.published(), 0, 0)[0].matmul_active == 0u);
}

BOOST_AUTO_TEST_CASE(a_stopped_execution_counts_the_pe_cycles_it_ran) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 0, 2500us), r);
    sim.advance(500us);
    sim.call([owner](platform& p) { p.executions().cancel(owner); });
    sim.advance(1ms);
    const auto rows = read_pe_counters(sim.published(), 0, 0);
    BOOST_TEST(rows[0].matmul_active == 700'000u);
    BOOST_TEST(rows[0].idle == 1'400'000u);
}

// The power sample at 50 ms covers 0..50 ms: on a two-core device, one core
// busy for 25 ms of it is 25% on average, 0% at least and 50% at most.
BOOST_AUTO_TEST_CASE(utilization_is_the_share_of_cores_running_executions) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    sim.advance(10ms);
    submit(sim, job(owner, 1, 25ms), r);
    sim.advance(45ms); // 55 ms
    auto u = read_utilization(sim.published(), 0);
    BOOST_TEST(u.status == power_status_valid);
    BOOST_TEST(u.avg_bp == 2500u);
    BOOST_TEST(u.min_bp == 0u);
    BOOST_TEST(u.max_bp == 5000u);
    // 50..100 ms: both cores busy from 60 ms on.
    sim.advance(5ms);
    submit(sim, job(owner, 0, 1s), r);
    submit(sim, job(owner, 1, 1s), r);
    sim.advance(45ms); // 105 ms
    u = read_utilization(sim.published(), 0);
    BOOST_TEST(u.avg_bp == 8000u);
    BOOST_TEST(u.min_bp == 0u);
    BOOST_TEST(u.max_bp == 10000u);
    // A whole window with no change since: constant.
    sim.advance(100ms); // 205 ms: the sample at 200 ms covers 150..200 ms
    u = read_utilization(sim.published(), 0);
    BOOST_TEST(u.avg_bp == 10000u);
    BOOST_TEST(u.min_bp == 10000u);
    BOOST_TEST(u.max_bp == 10000u);
}

BOOST_AUTO_TEST_CASE(a_forced_status_is_counted_in_its_directory_and_not_as_an_inference) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    auto request = job(owner, 0, 10us);
    request.forced_status = 1006; // NRT_EXEC_OOB
    results r;
    submit(sim, std::move(request), r);
    sim.advance(10us);
    BOOST_TEST(r.done.at(0).second == 1006u);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::oob_error).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 0u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::inference_count).total == 0u);
}

BOOST_AUTO_TEST_CASE(a_fault_that_strikes_the_core_is_counted_in_its_status_directory) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 0, 100us), r);
    sim.advance(40us);
    sim.call([](platform& p) { p.device(0).core(0).arm({fault_kind::collectives_hang, {}}); });
    auto next = job(owner, 0, 10us);
    next.options.timeout_ps = 1'000'000'000; // 1 ms
    submit(sim, std::move(next), r);
    sim.advance(2ms);
    // The first hangs and fails when its runtime's default timeout runs
    // out (30 s); the next waits for the core.
    BOOST_TEST(r.done.empty());
    sim.advance(30s);
    BOOST_TEST_REQUIRE(r.done.size() == 2u);
    BOOST_TEST(r.done[0].first == 30'000'000'000u);
    BOOST_TEST(r.done[0].second == 1200u);
    BOOST_TEST(r.done[1].second == 0u);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::hw_collectives_error).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::inference_count).total == 1u);
}

// The runtime gives up on an execution still running when its timeout runs
// out (from its start, not its submission): NRT_TIMEOUT then, counted in
// the timeout directory, and the core takes the next one at once.
BOOST_AUTO_TEST_CASE(an_execution_past_its_timeout_fails_with_nrt_timeout_and_frees_its_core) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    auto endless = job(owner, 0, 3600s);            // an hour of work
    endless.options.timeout_ps = 1'000'000'000'000; // 1 s
    submit(sim, std::move(endless), r);
    auto next = job(owner, 0, 100us);
    next.options.timeout_ps = 1'000'000'000'000;
    submit(sim, std::move(next), r);
    sim.advance(1s - 1ns);
    BOOST_TEST(r.done.empty());
    sim.advance(1ns);
    BOOST_TEST_REQUIRE(r.done.size() == 1u);
    BOOST_TEST(r.done[0].first == 1'000'000'000u);
    BOOST_TEST(r.done[0].second == nrt_status::timeout);
    sim.advance(100us);
    BOOST_TEST_REQUIRE(r.done.size() == 2u);
    BOOST_TEST(r.done[1].first == 1'000'100'000u); // started when the first was given up on
    BOOST_TEST(r.done[1].second == nrt_status::success);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::timeout).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 1u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::inference_count).total == 1u);
}

// job() moves no device memory: an HBM error in its core's channel (core 1
// reads channel 1 on trn1) fails it as it ends; one in another channel
// does not.
BOOST_AUTO_TEST_CASE(an_hbm_error_during_an_execution_fails_it_with_the_hbm_status) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 1, 100us), r);
    sim.advance(50us);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::hbm, 1, 1); });
    sim.advance(50us);
    BOOST_TEST_REQUIRE(r.done.size() == 1u);
    BOOST_TEST(r.done[0].first == 100'000u);
    BOOST_TEST(r.done[0].second == nrt_status::exec_hw_err_hbm_ue);
    submit(sim, job(owner, 1, 100us), r); // the next one starts after the error: it succeeds
    sim.advance(100us);
    BOOST_TEST(r.done.at(1).second == nrt_status::success);
    submit(sim, job(owner, 1, 100us), r);
    sim.advance(50us);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::hbm, 1, 0); });
    sim.advance(50us);
    BOOST_TEST(r.done.at(2).second == nrt_status::success);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(core_counter(sim, 0, 1, counter_kind::hw_hbm_ue_error).total == 1u);
    BOOST_TEST(read_ecc(sim.published(), 0).mem_ecc_uncorrected == 2u); // each counted once
}

// A program that reads device memory is struck when its DMA does, and the
// error is counted once.
BOOST_AUTO_TEST_CASE(an_hbm_error_strikes_an_execution_when_its_dma_reads_the_channel) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    auto request = job(owner, 0, 100us);
    auto work = std::make_shared<program>(*request.work);
    work->streams[static_cast<std::size_t>(engine_kind::tensor)][0].signal_semaphore = 0;
    instruction load;
    load.wait_semaphore = 0;
    load.wait_value = 1;
    load.busy_ps = 600'000;
    load.transfer = 0;
    work->streams[static_cast<std::size_t>(engine_kind::sync)].push_back(load);
    dma_transfer t;
    t.partitions = 128;
    t.bytes_per_partition = 2048;
    t.dma_engines = 16;
    t.from = memory_kind::hbm;
    t.start_latency_ps = 700'000; // data moves 1.3 us after the 600 ns instruction began
    work->transfers.push_back(t);
    request.work = std::move(work);
    results r;
    submit(sim, std::move(request), r);
    sim.advance(50us);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::hbm, 1, 0); });
    sim.advance(1ms);
    BOOST_TEST_REQUIRE(r.done.size() == 1u);
    // 100 us of tensor work, 200 sync-engine cycles of dependency (143 ns at
    // 1.4 GHz), then the transfer starts moving 1.3 us after its instruction.
    BOOST_TEST(r.done[0].first == 100'000u + 142u + 1'300u);
    BOOST_TEST(r.done[0].second == nrt_status::exec_hw_err_hbm_ue);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::hw_hbm_ue_error).total == 1u);
    BOOST_TEST(read_ecc(sim.published(), 0).mem_ecc_uncorrected == 1u);
}

// An execution that starts at once takes its baseline when submitted: an
// error that follows in the same instant, before the kernel has run anything
// else, happens during it (and one just before it does not).
BOOST_AUTO_TEST_CASE(an_error_right_after_the_submit_happens_during_the_execution) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    sim.call([&](platform& p) {
        p.executions().submit(job(owner, 0, 100us),
                              [&r](const execution_result& result) { r.done.emplace_back(0, result.status); });
        p.device(0).inject_ecc(ecc_kind::hbm, 1, 0);
    });
    sim.advance(100us);
    BOOST_TEST_REQUIRE(r.done.size() == 1u);
    BOOST_TEST(r.done[0].second == nrt_status::exec_hw_err_hbm_ue);
    sim.call([&](platform& p) {
        p.device(0).inject_ecc(ecc_kind::hbm, 1, 0);
        p.executions().submit(job(owner, 0, 100us),
                              [&r](const execution_result& result) { r.done.emplace_back(0, result.status); });
    });
    sim.advance(100us);
    BOOST_TEST_REQUIRE(r.done.size() == 2u);
    BOOST_TEST(r.done[1].second == nrt_status::success);
}

// On trn2 cores 0 and 1 read HBM channel 0, core 2 channel 1.
BOOST_AUTO_TEST_CASE(sram_and_repairable_hbm_errors_give_their_own_statuses) {
    simulation sim(stepped("trn2.3xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 0, 100us), r);
    submit(sim, job(owner, 1, 300us), r);
    sim.advance(50us);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::sram, 1); });
    sim.advance(150us);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::hbm_repairable, 1, 0); });
    sim.advance(200us);
    BOOST_TEST(r.done.at(0).second == nrt_status::exec_hw_err_nc_ue);
    // The second saw the SRAM error too; SRAM is reported first.
    BOOST_TEST(r.done.at(1).second == nrt_status::exec_hw_err_nc_ue);
    submit(sim, job(owner, 2, 100us), r);
    sim.advance(50us);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::hbm_repairable, 1, 1); });
    sim.advance(50us);
    BOOST_TEST(r.done.at(2).second == nrt_status::exec_hw_err_repairable_hbm_ue);
}

BOOST_AUTO_TEST_CASE(an_owner_gone_before_completion_is_not_counted_but_still_answered) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto owner = session(sim);
    results r;
    submit(sim, job(owner, 0, 100us), r);
    sim.call([owner](platform& p) { p.owners().release(owner); });
    sim.advance(100us);
    BOOST_TEST(r.done.size() == 1u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 0u);
}

BOOST_AUTO_TEST_CASE(closing_a_session_cancels_its_queue_and_frees_its_cores_at_once) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto killed = session(sim);
    results r;
    for (int i = 0; i < 1000; ++i) submit(sim, job(killed, 0, 1s), r); // 1000 s of work queued on core 0
    sim.advance(500ms);
    sim.call([killed](platform& p) { p.sessions().close(killed); });
    BOOST_TEST_REQUIRE(r.done.size() == 1000u); // every one answered, at once, with NRT_CLOSED
    for (const auto& [when, status] : r.done) {
        BOOST_TEST(when == 500'000'000u);
        BOOST_TEST(status == nrt_status::closed);
    }
    BOOST_TEST(sim.call([](platform& p) { return p.executions().pending(); }) == 0u);

    const auto next = session(sim);
    sim.call([next](platform& p) { p.owners().acquire_cores(next, 0, 1u << 0); });
    results fresh;
    submit(sim, job(next, 0, 100us), fresh);
    sim.advance(100us);
    BOOST_TEST_REQUIRE(fresh.done.size() == 1u, "the new owner's execution waited behind the dead one's queue");
    BOOST_TEST(fresh.done[0].first == 500'100'000u);
    BOOST_TEST(fresh.done[0].second == nrt_status::success);
    sim.advance(2s); // the cancelled ones never complete later
    BOOST_TEST(r.done.size() == 1000u);
    BOOST_TEST(core_counter(sim, 0, 0, counter_kind::success).total == 0u);
}

BOOST_AUTO_TEST_CASE(cancelling_one_owner_leaves_the_others_executions_alone) {
    simulation sim(stepped("trn1.2xlarge"));
    const auto gone = session(sim);
    const auto stays = session(sim);
    results r;
    submit(sim, job(gone, 0, 100us), r);
    submit(sim, job(stays, 1, 100us), r);
    sim.call([gone](platform& p) { p.sessions().close(gone); });
    sim.advance(100us);
    BOOST_TEST_REQUIRE(r.done.size() == 2u);
    BOOST_TEST(r.done[0].second == nrt_status::closed);
    BOOST_TEST(r.done[1].first == 100'000u);
    BOOST_TEST(r.done[1].second == nrt_status::success);
}

BOOST_AUTO_TEST_CASE(prints_reach_the_debug_event_sink_at_completion) {
    simulation sim(stepped("trn1.2xlarge"));
    std::vector<debug_event> seen;
    sim.call([&seen](platform& p) {
        p.debug_events().connect([&seen](debug_event&& e) {
            seen.push_back(std::move(e));
            return debug_delivery::accepted;
        });
    });
    auto request = job(session(sim), 1, 20us);
    debug_event print;
    print.device = 0;
    print.core = 1;
    print.prefix = "x";
    request.prints.push_back(print);
    results r;
    submit(sim, std::move(request), r);
    sim.advance(19us);
    BOOST_TEST(sim.call([&seen](platform&) { return seen.size(); }) == 0u);
    sim.advance(1us);
    BOOST_TEST(sim.call([&seen](platform&) { return seen.size(); }) == 1u);
}

BOOST_AUTO_TEST_CASE(bad_requests_are_refused_before_anything_is_queued) {
    simulation sim(stepped("trn1.2xlarge"));
    auto no_cores = job(session(sim), 0, 1us);
    no_cores.cores.clear();
    BOOST_CHECK_THROW(sim.call([&](platform& p) { p.executions().submit(no_cores, {}); }), invalid_argument_error);
    auto bad_core = job(1, 5, 1us);
    BOOST_CHECK_THROW(sim.call([&](platform& p) { p.executions().submit(bad_core, {}); }), invalid_argument_error);
    BOOST_TEST(sim.call([](platform& p) { return p.executions().pending(); }) == 0u);
}

BOOST_AUTO_TEST_CASE(status_directories_follow_the_driver_table) {
    BOOST_TEST((status_counter(0) == counter_kind::success));
    BOOST_TEST((status_counter(9) == counter_kind::resource_nc_error));
    BOOST_TEST((status_counter(1205) == counter_kind::hw_repairable_hbm_ue_error));
    for (std::uint32_t none : {3u, 11u, 13u, 14u, 15u, 101u, 1005u, 1100u, 1206u, 8u, 9999u}) {
        BOOST_TEST(!status_counter(none).has_value(), none);
    }
    BOOST_TEST(status_name(1201).value_or("") == "NRT_EXEC_HW_ERR_HBM_UE");
    BOOST_TEST(status_from_name("NRT_EXEC_OOB").value_or(0) == 1006u);
    BOOST_TEST(!status_from_name("NRT_BOGUS").has_value());
}
