#define BOOST_TEST_MODULE execution_recorder
#include "kernel_runs.h"
#include "neuron/model/hardware/tensor_throttle.h"
#include "neuron/model/spec/nrt_status.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>

// A profiled run records each instruction where its engine ran it, each DMA
// run, each semaphore change and the fault that stopped it; a run that is
// not profiled records nothing.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

run_options profiled() {
    run_options o;
    o.profile = std::make_shared<neuron::profile::core_timeline>();
    return o;
}

// Vector copies a tile into SBUF, signals; Sync waits and copies it to HBM
// over 16 DMA engines; Tensor multiplies twice meanwhile.
kernel pipeline() {
    kernel k;
    auto copy = op_of(opcode::tensor_copy, 128, 512);
    copy.signal_semaphore = 3;
    copy.source = 0;
    stream(k, engine_kind::vector) = {copy, op_of(opcode::tensor_copy, 128, 64)};
    auto store = dma(memory_kind::sbuf, memory_kind::hbm, 128, 1024);
    store.wait_semaphore = 3;
    store.wait_value = 1;
    store.signal_semaphore = 4;
    stream(k, engine_kind::sync) = {store};
    stream(k, engine_kind::tensor) = {matmul(128, 512), matmul(128, 512)};
    k.sources = {"kernel.py:7"};
    return k;
}

const neuron::profile::core_timeline& timeline_of(const kernel_run& run) {
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST_REQUIRE(run.report->profile != nullptr);
    return *run.report->profile;
}

} // namespace

BOOST_AUTO_TEST_CASE(instructions_follow_each_other_on_their_engine_and_sum_to_its_busy_time) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run run;
    start_kernel(sim, pipeline(), run, profiled());
    sim.advance(100us);
    const auto& t = timeline_of(run);
    BOOST_TEST(t.instructions.size() == 5u);
    for (std::size_t e = 0; e < engine_count; ++e) {
        std::vector<neuron::profile::instruction_record> mine;
        std::copy_if(t.instructions.begin(), t.instructions.end(), std::back_inserter(mine),
                     [e](const auto& r) { return r.engine == e; });
        std::uint64_t busy = 0;
        for (std::size_t i = 0; i < mine.size(); ++i) {
            BOOST_TEST(mine[i].index == i);
            BOOST_TEST(mine[i].end_ps >= mine[i].start_ps);
            if (i > 0) BOOST_TEST(mine[i].start_ps >= mine[i - 1].end_ps);
            busy += mine[i].end_ps - mine[i].start_ps;
        }
        BOOST_TEST(busy == run.report->busy_ps[e]);
    }
    BOOST_TEST(t.start_ps == 0u);
    BOOST_TEST(t.end_ps == run.end_ps);
}

BOOST_AUTO_TEST_CASE(a_wait_starts_after_the_signal_that_satisfies_it) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run run;
    start_kernel(sim, pipeline(), run, profiled());
    sim.advance(100us);
    const auto& t = timeline_of(run);
    const auto& producer = *std::find_if(t.instructions.begin(), t.instructions.end(), [](const auto& r) {
        return r.engine == static_cast<std::uint8_t>(engine_kind::vector) && r.index == 0;
    });
    const auto& consumer = *std::find_if(t.instructions.begin(), t.instructions.end(), [](const auto& r) {
        return r.engine == static_cast<std::uint8_t>(engine_kind::sync);
    });
    BOOST_TEST(producer.signal_semaphore == 3u);
    BOOST_TEST(producer.source == 0u);
    BOOST_TEST(t.sources.at(0) == "kernel.py:7");
    BOOST_TEST(consumer.wait_semaphore == 3u);
    BOOST_TEST(consumer.wait_value == 1u);
    BOOST_TEST(consumer.start_ps > producer.end_ps); // after the dependency latency
    const auto change =
        std::find_if(t.semaphores.begin(), t.semaphores.end(), [](const auto& s) { return s.index == 3; });
    BOOST_TEST_REQUIRE((change != t.semaphores.end()));
    BOOST_TEST(change->at_ps == producer.end_ps);
    BOOST_TEST(change->value == 1u);
    BOOST_TEST(t.opcodes.at(producer.opcode) == "tensor_copy");
    BOOST_TEST(t.opcodes.at(consumer.opcode) == "dma_copy");
}

BOOST_AUTO_TEST_CASE(a_transfer_is_recorded_with_its_runs_and_its_slices_signals) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run run;
    start_kernel(sim, pipeline(), run, profiled());
    sim.advance(100us);
    const auto& t = timeline_of(run);
    BOOST_TEST_REQUIRE(t.transfers.size() == 1u);
    const auto& x = t.transfers[0];
    BOOST_TEST(x.engine == static_cast<std::uint8_t>(engine_kind::sync));
    BOOST_TEST((x.from == neuron::profile::memory::sbuf));
    BOOST_TEST((x.to == neuron::profile::memory::hbm));
    BOOST_TEST(x.bytes() == 128u * 1024u);
    BOOST_TEST(x.arrives_ps > x.issued_ps);
    std::uint64_t bytes = 0;
    std::uint32_t engines = 0;
    for (const auto& r : t.dma_runs) {
        BOOST_TEST(r.transfer == 0u);
        BOOST_TEST(r.start_ps >= x.arrives_ps);
        BOOST_TEST(!r.cut);
        bytes += r.bytes;
        engines |= r.engines;
    }
    BOOST_TEST(bytes == x.bytes());
    BOOST_TEST(engines == 0xffffu);
    BOOST_TEST(bytes == run.report->dma.bytes);
    const auto last =
        std::find_if(t.semaphores.rbegin(), t.semaphores.rend(), [](const auto& s) { return s.index == 4; });
    BOOST_TEST_REQUIRE((last != t.semaphores.rend()));
    BOOST_TEST(last->value == 16u);
}

BOOST_AUTO_TEST_CASE(a_fault_cuts_the_run_where_it_struck) {
    simulation sim(stepped("trn1.2xlarge"));
    sim.call([](platform& p) { p.device(0).core(0).arm({fault_kind::dma_abort, {}}); });
    kernel_run run;
    start_kernel(sim, pipeline(), run, profiled());
    sim.advance(100us);
    const auto& t = timeline_of(run);
    BOOST_TEST_REQUIRE(t.faults.size() == 1u);
    BOOST_TEST(t.faults[0].kind == "dma_abort");
    BOOST_TEST(t.faults[0].status == 1203u);
    BOOST_TEST(t.faults[0].at_ps == run.end_ps);
    BOOST_TEST(t.end_ps == run.end_ps);
    for (const auto& r : t.instructions) BOOST_TEST(r.end_ps <= run.end_ps);
    // The matmuls were cut: the tensor engine's records add up to what it ran.
    std::uint64_t tensor = 0;
    for (const auto& r : t.instructions) {
        if (r.engine == 0) tensor += r.end_ps - r.start_ps;
    }
    BOOST_TEST(tensor == run.report->busy_ps[0]);
}

BOOST_AUTO_TEST_CASE(a_run_not_profiled_records_nothing) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel_run first;
    start_kernel(sim, pipeline(), first);
    sim.advance(100us);
    BOOST_TEST_REQUIRE(first.report.has_value());
    BOOST_TEST(first.report->profile == nullptr);
    kernel_run second; // a profiled run after it starts from nothing recorded before
    start_kernel(sim, pipeline(), second, profiled());
    sim.advance(100us);
    BOOST_TEST(timeline_of(second).instructions.size() == 5u);
    BOOST_TEST(timeline_of(second).start_ps == 100'000'000u); // started after the first advance
    for (const auto& r : timeline_of(second).instructions) BOOST_TEST(r.start_ps >= 100'000'000u);
}

// Transfers are kept in the order they were issued, which need not be the
// program's: each instruction still names the one it started.
BOOST_AUTO_TEST_CASE(an_instruction_names_the_transfer_it_issued) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel k;
    auto late = dma(memory_kind::hbm, memory_kind::sbuf, 128, 64);
    late.wait_semaphore = 5;
    late.wait_value = 1;
    auto early = dma(memory_kind::sbuf, memory_kind::hbm, 128, 128);
    auto work = op_of(opcode::tensor_copy, 128, 4096);
    work.signal_semaphore = 5;
    stream(k, engine_kind::sync) = {late}; // the program's transfer 0
    stream(k, engine_kind::vector) = {work};
    stream(k, engine_kind::gpsimd) = {early}; // transfer 1, issued first
    kernel_run run;
    start_kernel(sim, k, run, profiled());
    sim.advance(100us);
    const auto& t = timeline_of(run);
    BOOST_TEST_REQUIRE(t.transfers.size() == 2u);
    BOOST_TEST(t.transfers[0].engine == static_cast<std::uint8_t>(engine_kind::gpsimd));
    for (const auto& r : t.instructions) {
        if (r.transfer == neuron::profile::none) continue;
        BOOST_TEST(t.transfers.at(r.transfer).engine == r.engine);
        BOOST_TEST(t.transfers.at(r.transfer).issued_ps == r.end_ps);
    }
}

// trn2's Tensor engine starts each run after idling under its current limit:
// the timeline holds the time its array ran under it and the full-speed work
// done then, this run's only.
BOOST_AUTO_TEST_CASE(the_tensor_engines_time_under_its_current_limit_is_recorded) {
    auto config = stepped("trn2.3xlarge");
    config.tensor_throttle = true;
    simulation sim(config);
    for (int n = 0; n < 2; ++n) {
        BOOST_TEST_CONTEXT("run " << n) {
            kernel_run run;
            start_kernel(sim, pipeline(), run, profiled());
            sim.advance(100us);
            const auto& t = timeline_of(run);
            std::uint64_t matmuls_ps = 0; // as the records stretch them
            for (const auto& r : t.instructions) {
                if (r.macs > 0) matmuls_ps += r.end_ps - r.start_ps;
            }
            // Two 128 x 512 bf16 matmuls: 512 cycles each at 2.4 GHz.
            // One stretch: the two matmuls, from its start, wholly under the limit.
            BOOST_TEST_REQUIRE(t.throttled.size() == 1u);
            const auto& limited = t.throttled[0];
            BOOST_TEST(limited.work_ps + 1 >= 2 * 213'333u);
            BOOST_TEST(limited.work_ps <= 2 * 213'334u);
            BOOST_TEST(limited.end_ps - limited.start_ps == matmuls_ps);
            BOOST_TEST(limited.end_ps - limited.start_ps > 2 * limited.work_ps); // from 38% of full speed
        }
    }
}

BOOST_AUTO_TEST_CASE(trainium1_has_no_current_limit_to_record) {
    auto config = stepped("trn1.2xlarge");
    config.tensor_throttle = true; // where the generation has one
    simulation sim(config);
    kernel_run run;
    start_kernel(sim, pipeline(), run, profiled());
    sim.advance(100us);
    BOOST_TEST(timeline_of(run).throttled.empty());
}

// A fault that stops the matmuls midway: the time under the limit is what
// they ran of it, no more than the Tensor engine's records.
BOOST_AUTO_TEST_CASE(a_fault_cuts_the_time_under_the_current_limit_too) {
    auto config = stepped("trn2.3xlarge");
    config.tensor_throttle = true;
    simulation sim(config);
    sim.call([](platform& p) { p.device(0).core(0).arm({fault_kind::dma_abort, {}}); });
    auto k = pipeline(); // the DMA aborts while the Tensor engine is still busy
    auto& tensor = stream(k, engine_kind::tensor);
    while (tensor.text().size() < 16) tensor.push_back(matmul(128, 512));
    kernel_run run;
    start_kernel(sim, k, run, profiled());
    sim.advance(100us);
    const auto& t = timeline_of(run);
    BOOST_TEST_REQUIRE(t.faults.size() == 1u);
    std::uint64_t matmuls_ps = 0;
    for (const auto& r : t.instructions) {
        if (r.macs > 0) matmuls_ps += r.end_ps - r.start_ps;
    }
    // Cut before their work was done: uncut they would take this long (trn2's figures).
    const auto uncut = tensor_throttle(3000'000, 0.38, 30'000'000).run(0, 16 * 213'333);
    BOOST_TEST(matmuls_ps < uncut);
    const auto limited = neuron::profile::total_throttled(t);
    BOOST_TEST(limited.time_ps == matmuls_ps);
    BOOST_TEST(limited.work_ps <= limited.time_ps);
}
