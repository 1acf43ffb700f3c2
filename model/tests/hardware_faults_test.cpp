#define BOOST_TEST_MODULE hardware_faults
#include "kernel_runs.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/ecc.h"

#include <boost/test/unit_test.hpp>

// Faults armed on a core strike when it first does what they name, and stop
// the run at that simulated time with their status.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

void arm(simulation& sim, armed_fault f) {
    sim.call([f](platform& p) { p.device(0).core(0).arm(f); });
}

std::uint32_t status_of(const kernel_run& run) {
    BOOST_TEST_REQUIRE(run.report.has_value());
    return run.report->fault ? run.report->fault->status : 0u;
}

kernel_op copy(memory_kind from, std::uint32_t queue = 0) {
    auto c = dma(from, memory_kind::sbuf, 128, 2048);
    c.queue = queue;
    return c;
}

// 10 us of vector work, then a transfer from device memory: the DMA engines
// start moving at 10.6 us + 700 ns.
kernel work_then_copy(std::uint32_t queue = 0) {
    kernel k;
    stream(k, engine_kind::vector).push_back(op_of(opcode::tensor_copy, 128, 10'000)); // long enough
    auto c = copy(memory_kind::hbm, queue);
    c.wait_semaphore = 0;
    c.wait_value = 1;
    stream(k, engine_kind::vector).back().signal_semaphore = 0;
    stream(k, engine_kind::sync).push_back(c);
    return k;
}

// A default copy's 8 partitions of 2048 bytes per DMA engine at 70% of
// trn1's 17 B/ns, moving from 1.3 us, on engines reached 25 ns apart (the
// 16th 375 ns after the first).
constexpr std::uint64_t first_copy_end_ps = 1'300'000 + (8 * (2048 + 128) * 1000 * 10 + 118) / 119 + 15 * 25'000;

std::uint64_t vector_end_ps(simulation& sim) {
    kernel k;
    stream(k, engine_kind::vector).push_back(op_of(opcode::tensor_copy, 128, 10'000));
    return sim.call([&k](platform& p) {
        return build_program_of(k, p.published().spec())
            ->streams[static_cast<std::size_t>(engine_kind::vector)][0]
            .busy_ps;
    });
}

} // namespace

BOOST_AUTO_TEST_CASE(a_dma_abort_stops_the_run_when_a_dma_engine_starts_moving) {
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::dma_abort, {}});
    kernel_run run;
    start_kernel(sim, work_then_copy(), run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1203u);
    // The copy waited for the vector work (+200 cycles), took 600 ns, and
    // its data would have started moving 700 ns later.
    const auto dependency_ps = cycles_to_ps(costs_of(core_generation::nc_v2).dependency_cycles.value, 1'400'000'000);
    BOOST_TEST(run.end_ps == vector_end_ps(sim) + dependency_ps + 1'300'000);
    BOOST_TEST(run.report->dma.bytes == 0u);
    BOOST_TEST(run.report->fault->dma_engine == 0u);
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(0).armed().empty(); })); // spent
}

BOOST_AUTO_TEST_CASE(a_fault_aimed_at_a_queue_lets_other_queues_move) {
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::dma_abort, {std::nullopt, 3}});
    kernel k;
    stream(k, engine_kind::sync) = {copy(memory_kind::hbm, 0), copy(memory_kind::hbm, 3)};
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1203u);
    BOOST_TEST(run.end_ps == first_copy_end_ps); // the second copy starts moving when the first one ends
    BOOST_TEST(run.report->dma.bytes > 0u);      // the first one moved
}

BOOST_AUTO_TEST_CASE(a_dma_abort_names_the_first_engine_it_struck) {
    // Engine 0 still moves the first copy when the second (engines 0-3)
    // arrives: engines 1-3 start it first, and the abort strikes engine 1.
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::dma_abort, {std::nullopt, 3}});
    kernel k;
    auto second = copy(memory_kind::hbm, 3);
    second.dma_engines = 4;
    auto first = dma(memory_kind::sbuf, memory_kind::sbuf, 1, 17 * 5000, 1); // 5 us on engine 0
    stream(k, engine_kind::sync) = {first, second};
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1203u);
    BOOST_TEST(run.report->fault->dma_engine == 1u);
    // The second copy's data moves 1.3 us after its static trigger began,
    // one trigger (64 cycles at 1.4 GHz) into the run.
    BOOST_TEST(run.end_ps == 45'714u + 1'300'000u);
}

BOOST_AUTO_TEST_CASE(an_out_of_bounds_fault_aimed_at_an_engine_strikes_its_first_instruction) {
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::out_of_bounds, {engine_kind::sync, std::nullopt}});
    kernel_run run;
    start_kernel(sim, work_then_copy(), run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1006u);
    const auto dependency_ps = cycles_to_ps(costs_of(core_generation::nc_v2).dependency_cycles.value, 1'400'000'000);
    BOOST_TEST(run.end_ps == vector_end_ps(sim) + dependency_ps); // when the sync engine's copy starts
}

BOOST_AUTO_TEST_CASE(an_sram_error_strikes_an_instruction_and_counts_in_the_sram_register) {
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::sram_uncorrectable, {}});
    kernel_run run;
    start_kernel(sim, work_then_copy(), run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1202u);
    BOOST_TEST(run.end_ps == 0u); // the vector engine's first instruction
    BOOST_TEST(read_ecc(sim.published(), 0).sram_ecc_uncorrected == 1u);
}

BOOST_AUTO_TEST_CASE(an_hbm_error_strikes_the_first_transfer_of_device_memory) {
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::hbm_uncorrectable, {}});
    kernel k;
    stream(k, engine_kind::sync) = {copy(memory_kind::sbuf), copy(memory_kind::hbm)};
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1201u);
    BOOST_TEST(run.end_ps == first_copy_end_ps); // the second copy, not the SBUF one
    BOOST_TEST(read_ecc(sim.published(), 0).mem_ecc_uncorrected == 1u);
}

BOOST_AUTO_TEST_CASE(a_notification_overflow_strikes_at_a_print_which_is_lost) {
    simulation sim(stepped("trn1.2xlarge"));
    std::size_t prints = 0;
    sim.call([&prints](platform& p) {
        p.debug_events().connect([&prints](debug_event&&) {
            ++prints;
            return debug_delivery::accepted;
        });
    });
    arm(sim, {fault_kind::notification_overflow, {}});
    kernel k;
    k.prints.push_back({});
    auto print = op_of(opcode::print, 1, 1);
    print.print = 0;
    stream(k, engine_kind::vector) = {op_of(opcode::tensor_copy, 128, 512), print,
                                      op_of(opcode::tensor_copy, 128, 512)};
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST(status_of(run) == 1204u);
    BOOST_TEST(sim.call([&prints](platform&) { return prints; }) == 0u);
}

BOOST_AUTO_TEST_CASE(a_collectives_hang_fails_the_run_when_the_runtime_times_out) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run run;
    run_options options;
    options.timeout_ps = 5'000'000'000; // 5 ms
    start_kernel(sim, work_then_copy(), run, options);
    sim.advance(1us);
    arm(sim, {fault_kind::collectives_hang, {}}); // strikes the run in progress
    sim.advance(5ms - 1us - 1ns);
    BOOST_TEST(!run.report.has_value());
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(0).find_engine(engine_kind::vector)->busy_ps(); }) ==
               1'000'000u); // stopped when it hung
    sim.advance(1ns);
    BOOST_TEST(status_of(run) == 1200u);
    BOOST_TEST(run.end_ps == 5'000'000'000u);
}

BOOST_AUTO_TEST_CASE(a_trigger_strikes_where_it_happens_or_at_the_end) {
    simulation sim(stepped("trn1.2xlarge"));
    run_options options;
    options.fault = fault_kind::dma_abort;
    kernel_run with_dma;
    start_kernel(sim, work_then_copy(), with_dma, options);
    sim.advance(1s);
    BOOST_TEST(status_of(with_dma) == 1203u);
    BOOST_TEST(with_dma.report->dma.bytes == 0u);

    kernel no_dma;
    stream(no_dma, engine_kind::vector).push_back(op_of(opcode::tensor_copy, 128, 512));
    kernel_run at_end;
    start_kernel(sim, no_dma, at_end, options);
    sim.advance(1s);
    BOOST_TEST(status_of(at_end) == 1203u); // nothing to strike: the run fails as it ends
    BOOST_TEST(at_end.report->busy_ps[static_cast<std::size_t>(engine_kind::vector)] > 0u);

    kernel_run next;
    start_kernel(sim, work_then_copy(), next);
    sim.advance(1s);
    BOOST_TEST(status_of(next) == 0u); // a trigger is for its run only
}

BOOST_AUTO_TEST_CASE(a_fault_armed_on_an_idle_core_waits_for_its_next_run) {
    simulation sim(stepped("trn1.2xlarge"));
    arm(sim, {fault_kind::out_of_bounds, {std::nullopt, 2}});
    kernel_run first;
    start_kernel(sim, work_then_copy(0), first);
    sim.advance(1s);
    BOOST_TEST(status_of(first) == 0u); // queue 0: not aimed at
    kernel_run second;
    start_kernel(sim, work_then_copy(2), second);
    sim.advance(1s);
    BOOST_TEST(status_of(second) == 1006u);
}

BOOST_AUTO_TEST_CASE(a_fault_aimed_at_what_the_core_lacks_is_refused) {
    simulation sim(stepped("inf1.2xlarge"));
    const auto refused = [&sim](armed_fault f) {
        try {
            arm(sim, f);
        } catch (const invalid_argument_error&) {
            return true;
        }
        return false;
    };
    BOOST_TEST(refused({fault_kind::out_of_bounds, {engine_kind::sync, std::nullopt}})); // inf1 has none
    BOOST_TEST(refused({fault_kind::dma_abort, {std::nullopt, 16}}));
    BOOST_TEST(refused({fault_kind::out_of_bounds, {engine_kind::vector, 0}}));
    BOOST_TEST(refused({fault_kind::collectives_hang, {engine_kind::vector, std::nullopt}}));
    BOOST_TEST(refused({fault_kind::dma_abort, {engine_kind::vector, std::nullopt}}));
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(0).armed().empty(); }));
}
