#define BOOST_TEST_MODULE hbm_channel_errors
#include "kernel_runs.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/ecc.h"

#include <boost/test/unit_test.hpp>

// An uncorrected HBM error injected into a channel (ctl inject-ecc) meets
// the runs in progress on the cores of that channel: it strikes when the
// run's DMA next moves device memory, at that simulated time, with 1201, or
// 1205 while a repair is pending. It is counted once, when injected.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

void inject(simulation& sim, ecc_kind kind, std::uint32_t channel) {
    sim.call([kind, channel](platform& p) { p.device(0).inject_ecc(kind, 1, channel); });
}

std::uint32_t status_of(const kernel_run& run) {
    BOOST_TEST_REQUIRE(run.report.has_value());
    return run.report->fault ? run.report->fault->status : 0u;
}

kernel_op copy(memory_kind from, memory_kind to = memory_kind::sbuf) { return dma(from, to, 128, 2048); }

// 10 us of vector work, then a transfer from device memory on the sync
// engine, which waits for it.
kernel work_then_copy() {
    kernel k;
    stream(k, engine_kind::vector).push_back(op_of(opcode::tensor_copy, 128, 10'000));
    stream(k, engine_kind::vector).back().signal_semaphore = 0;
    auto c = copy(memory_kind::hbm);
    c.wait_semaphore = 0;
    c.wait_value = 1;
    stream(k, engine_kind::sync).push_back(c);
    return k;
}

// When work_then_copy()'s transfer starts moving: the vector work, the sync
// engine's dependency latency, then dma_start_ns after its instruction began.
std::uint64_t copy_moves_ps(simulation& sim) {
    return sim.call([](platform& p) {
        const auto& spec = p.published().spec();
        const auto program = build_program_of(work_then_copy(), spec);
        const auto vector = program->streams[static_cast<std::size_t>(engine_kind::vector)][0].busy_ps;
        const auto sync_clock = p.device(0).core(0).find_engine(engine_kind::sync)->clock_hz();
        return vector + cycles_to_ps(costs_of(core_generation::nc_v2).dependency_cycles.value, sync_clock) +
               costs_of(core_generation::nc_v2).dma_start_ns.value * 1000;
    });
}

ecc_readout ecc_of(const simulation& sim) { return read_ecc(sim.published(), 0); }

std::uint32_t uncorrected_in(const simulation& sim, std::uint32_t channel) {
    return sim.published().ecc_word(0, hbm_channel_register(channel)) & 0xffffu;
}

} // namespace

BOOST_AUTO_TEST_CASE(an_error_in_the_cores_channel_strikes_its_next_transfer_of_device_memory) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run run;
    start_kernel(sim, work_then_copy(), run, 1); // core 1 reads channel 1
    sim.advance(1us);
    inject(sim, ecc_kind::hbm, 1);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u); // counted when injected
    sim.advance(1s);
    BOOST_TEST(status_of(run) == nrt_status::exec_hw_err_hbm_ue);
    BOOST_TEST(run.end_ps == copy_moves_ps(sim));
    BOOST_TEST(run.report->dma.bytes == 0u);
    BOOST_TEST(fault_info(run.report->fault->kind).name == "hbm_uncorrectable");
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u); // and not again when it struck
    BOOST_TEST(uncorrected_in(sim, 1) == 1u);
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(1).armed().empty(); }));

    kernel_run next; // the error stays in the past
    start_kernel(sim, work_then_copy(), next, 1);
    sim.advance(1s);
    BOOST_TEST(status_of(next) == 0u);
}

// Trn2: cores 2 and 3 share HBM stack 1, core 4 reads stack 2.
BOOST_AUTO_TEST_CASE(an_error_strikes_only_the_runs_on_cores_of_its_channel) {
    simulation sim(stepped("trn2.3xlarge"));
    kernel_run on_channel_1;
    kernel_run on_channel_2;
    start_kernel(sim, work_then_copy(), on_channel_1, 2);
    start_kernel(sim, work_then_copy(), on_channel_2, 4);
    sim.advance(1us);
    inject(sim, ecc_kind::hbm, 1);
    sim.advance(1s);
    BOOST_TEST(status_of(on_channel_1) == nrt_status::exec_hw_err_hbm_ue);
    BOOST_TEST(on_channel_1.end_ps == copy_moves_ps(sim));
    BOOST_TEST(status_of(on_channel_2) == 0u);
    BOOST_TEST(on_channel_2.report->dma.hbm_bytes == 128u * 2048u);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u);
    BOOST_TEST(uncorrected_in(sim, 1) == 1u);
}

BOOST_AUTO_TEST_CASE(a_pending_repair_makes_the_error_repairable) {
    simulation sim(stepped("trn2.3xlarge"));
    sim.call([](platform& p) { p.device(0).ecc().set_repair_state(hbm_repair_state::pending_repair); });
    kernel_run hbm;
    start_kernel(sim, work_then_copy(), hbm, 0);
    sim.advance(1us);
    inject(sim, ecc_kind::hbm, 0);
    sim.advance(1s);
    BOOST_TEST(status_of(hbm) == nrt_status::exec_hw_err_repairable_hbm_ue);
    BOOST_TEST(hbm.end_ps == copy_moves_ps(sim));
    BOOST_TEST(ecc_of(sim).mem_ecc_repairable_uncorrected == 1u);

    // A repairable error sets the state pending itself.
    sim.call([](platform& p) { p.device(0).ecc().set_repair_state(hbm_repair_state::none_pending); });
    kernel_run repairable;
    start_kernel(sim, work_then_copy(), repairable, 7);
    sim.advance(1us);
    inject(sim, ecc_kind::hbm_repairable, 3);
    sim.advance(1s);
    BOOST_TEST(status_of(repairable) == nrt_status::exec_hw_err_repairable_hbm_ue);
    BOOST_TEST(ecc_of(sim).mem_ecc_repairable_uncorrected == 2u);
    BOOST_TEST(uncorrected_in(sim, 3) == 1u);

    // With no repair pending, an HBM error is unrepairable.
    sim.call([](platform& p) { p.device(0).ecc().set_repair_state(hbm_repair_state::repair_failed); });
    kernel_run failed;
    start_kernel(sim, work_then_copy(), failed, 0);
    sim.advance(1us);
    inject(sim, ecc_kind::hbm, 0);
    sim.advance(1s);
    BOOST_TEST(status_of(failed) == nrt_status::exec_hw_err_hbm_ue);
}

BOOST_AUTO_TEST_CASE(an_error_strikes_a_transfer_of_device_memory_already_moving_at_once) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel k;
    stream(k, engine_kind::sync).push_back(dma(memory_kind::hbm, memory_kind::sbuf, 128, 65536)); // moves from 1.3 us
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(2us);
    inject(sim, ecc_kind::hbm, 0);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == nrt_status::exec_hw_err_hbm_ue);
    BOOST_TEST(run.end_ps == 2'000'000u);
    BOOST_TEST(run.report->dma.hbm_bytes > 0u);
    BOOST_TEST(run.report->fault->dma_engine == 0u);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u);
}

// Nothing reads the channel any more: an SBUF copy is no read of device memory.
BOOST_AUTO_TEST_CASE(a_run_past_its_last_transfer_of_device_memory_is_not_struck) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel k;
    auto load = copy(memory_kind::hbm);
    load.signal_semaphore = 0;
    stream(k, engine_kind::sync).push_back(load);
    auto work = op_of(opcode::tensor_copy, 128, 10'000);
    work.wait_semaphore = 0;
    work.wait_value = default_dma_engines; // every slice of the load
    work.signal_semaphore = 1;
    stream(k, engine_kind::vector).push_back(work);
    auto keep = copy(memory_kind::sbuf);
    keep.wait_semaphore = 1;
    keep.wait_value = 1;
    stream(k, engine_kind::sync).push_back(keep);
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(5us); // the load ended at about 2.3 us; the vector works until about 12 us
    BOOST_TEST(!run.report.has_value());
    inject(sim, ecc_kind::hbm, 0);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 0u);
    BOOST_TEST(!run.report->memory_error.has_value());
    BOOST_TEST(run.end_ps > 12'000'000u);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u);
}

BOOST_AUTO_TEST_CASE(an_error_on_an_idle_core_is_only_counted) {
    simulation sim(stepped("trn1.2xlarge"));
    inject(sim, ecc_kind::hbm, 0);
    kernel_run run;
    start_kernel(sim, work_then_copy(), run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 0u);
    BOOST_TEST(!run.report->memory_error.has_value());
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u);
}

// A program of the `work:` kind moves no device memory: the run ends when
// it would, the error in its report for the execution unit to judge.
BOOST_AUTO_TEST_CASE(a_run_moving_no_device_memory_carries_the_error_to_its_end) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel k;
    stream(k, engine_kind::vector).push_back(op_of(opcode::tensor_copy, 128, 10'000));
    stream(k, engine_kind::sync).push_back(copy(memory_kind::sbuf));
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1us);
    inject(sim, ecc_kind::hbm, 0);
    inject(sim, ecc_kind::hbm, 1); // another channel
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 0u);
    BOOST_TEST_REQUIRE(run.report->memory_error.has_value());
    BOOST_TEST(fault_info(*run.report->memory_error).name == "hbm_uncorrectable");
    const auto vector = sim.call([&k](platform& p) {
        return build_program_of(k, p.published().spec())
            ->streams[static_cast<std::size_t>(engine_kind::vector)][0]
            .busy_ps;
    });
    BOOST_TEST(run.end_ps == vector);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 2u);
}

BOOST_AUTO_TEST_CASE(corrected_and_sram_errors_strike_no_transfer) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run run;
    start_kernel(sim, work_then_copy(), run);
    sim.advance(1us);
    inject(sim, ecc_kind::hbm_corrected, 0);
    sim.call([](platform& p) { p.device(0).inject_ecc(ecc_kind::sram, 1); });
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 0u); // the SRAM error is the execution unit's to judge
    BOOST_TEST(!run.report->memory_error.has_value());
}

// A fault armed with ctl inject-fault counts its error when it strikes, in
// the channel of the core it struck.
BOOST_AUTO_TEST_CASE(an_armed_hbm_fault_counts_in_the_channel_of_its_core) {
    simulation sim(stepped("trn2.3xlarge"));
    sim.call([](platform& p) { p.device(0).core(5).arm({fault_kind::hbm_uncorrectable, {}}); });
    kernel_run run;
    start_kernel(sim, work_then_copy(), run, 5);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == nrt_status::exec_hw_err_hbm_ue);
    BOOST_TEST(uncorrected_in(sim, 2) == 1u);
    BOOST_TEST(uncorrected_in(sim, 0) == 0u);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 1u);
}

BOOST_AUTO_TEST_CASE(an_armed_hbm_fault_is_repairable_while_a_repair_is_pending) {
    // The status follows the repair state, as the registers do: the error
    // counts as repairable, so the execution fails with 1205, not 1201.
    simulation sim(stepped("trn2.3xlarge"));
    sim.call([](platform& p) {
        p.device(0).ecc().set_repair_state(hbm_repair_state::pending_repair);
        p.device(0).core(0).arm({fault_kind::hbm_uncorrectable, {}});
    });
    kernel_run run;
    start_kernel(sim, work_then_copy(), run, 0);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == nrt_status::exec_hw_err_repairable_hbm_ue);
    BOOST_TEST(ecc_of(sim).mem_ecc_repairable_uncorrected == 1u);
    BOOST_TEST(ecc_of(sim).mem_ecc_uncorrected == 0u);
}
