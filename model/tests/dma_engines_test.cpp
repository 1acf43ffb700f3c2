#define BOOST_TEST_MODULE dma_engines
#include "kernel_runs.h"

#include <boost/test/unit_test.hpp>

// How a core's DMA engines share out a transfer, take their queues in turn
// and stop; the figures they reproduce are in hardware_figures_test.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

template <typename F>
auto on_core(simulation& sim, F read) {
    return sim.call([read](platform& p) { return read(p.device(0).core(0)); });
}

std::uint32_t semaphore(simulation& sim, std::uint32_t index) {
    return on_core(sim, [index](neuron_core& c) { return c.semaphores().value(index); });
}

// Bytes of one partition that one engine moves in `ns` on trn2 (23 B/ns,
// 128 bytes of descriptor overhead).
constexpr std::uint64_t trn2_bytes_in(std::uint64_t ns) { return 23 * ns - 128; }

} // namespace

BOOST_AUTO_TEST_CASE(an_uneven_transfer_gives_the_first_engines_one_partition_more) {
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    auto copy = dma(memory_kind::hbm, memory_kind::sbuf, 100, 1024); // 16 engines: 4 take 7, 12 take 6
    copy.signal_semaphore = 0;
    stream(k, engine_kind::sync).push_back(copy);
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1700ns); // moving: from 1300 ns, on engines reached 25 ns apart (the 16th at 375 ns)
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).memory().active(); }) == 16u);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(semaphore(sim, 0) == 16u); // every slice adds 1
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().bytes_moved(3); }) == 7 * 1024u);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().bytes_moved(4); }) == 6 * 1024u);
    BOOST_TEST(run.report->dma.bytes == 100 * 1024u);
    BOOST_TEST(run.report->dma.hbm_bytes == 100 * 1024u);
}

BOOST_AUTO_TEST_CASE(an_engine_takes_the_heads_of_its_queues_in_turn) {
    // One engine: X (queue 0) moves from 1300 ns to 3300 ns; A (queue 0)
    // and then B (queue 1) arrive meanwhile. The turn passes to queue 1
    // after X, so B moves before A although it arrived later.
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    auto transfer = [](std::uint64_t ns, std::uint32_t queue, std::uint32_t semaphore) {
        auto copy = dma(memory_kind::sbuf, memory_kind::sbuf, 1, trn2_bytes_in(ns), 1);
        copy.queue = queue;
        copy.signal_semaphore = semaphore;
        return copy;
    };
    stream(k, engine_kind::sync) = {transfer(2000, 0, 0), transfer(1000, 0, 1), transfer(1000, 1, 2)};
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(3300ns + 1000ns);
    BOOST_TEST(semaphore(sim, 0) == 1u);
    BOOST_TEST(semaphore(sim, 2) == 1u); // B
    BOOST_TEST(semaphore(sim, 1) == 0u); // A waits its turn
    sim.advance(1000ns);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(run.end_ps == 5'300'000u);
}

BOOST_AUTO_TEST_CASE(slices_beyond_the_engine_count_queue_behind_the_first_ones) {
    // inf1 has 3 DMA engines: 16 slices of one descriptor put 6 on engine 0
    // and 5 on engines 1 and 2, each 100 ns at 17 B/ns.
    simulation sim(stepped("inf1.2xlarge"));
    kernel k;
    auto copy = dma(memory_kind::hbm, memory_kind::sbuf, 16, 17 * 100 - 128);
    copy.signal_semaphore = 0;
    stream(k, engine_kind::vector).push_back(copy);
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1300ns + 500ns);
    BOOST_TEST(semaphore(sim, 0) == 15u); // five rounds of three
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(run.end_ps == 1'900'000u);
    BOOST_TEST(semaphore(sim, 0) == 16u);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().busy_ps(0); }) == 600'000u);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().busy_ps(1); }) == 500'000u);
}

BOOST_AUTO_TEST_CASE(an_abort_keeps_what_moved_and_drops_the_rest) {
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    stream(k, engine_kind::sync) = {dma(memory_kind::sbuf, memory_kind::sbuf, 1, trn2_bytes_in(1000), 1),
                                    dma(memory_kind::sbuf, memory_kind::sbuf, 1, trn2_bytes_in(1000), 1)};
    kernel_run aborted;
    start_kernel(sim, k, aborted);
    sim.advance(1300ns + 500ns); // half of the first; the second is queued
    sim.call([](platform& p) { p.device(0).core(0).abort(); });
    const auto half = static_cast<double>(trn2_bytes_in(1000)) / 2;
    const auto moved = on_core(sim, [](neuron_core& c) { return c.dma().bytes_moved(0); });
    BOOST_TEST(std::abs(static_cast<double>(moved) - half) < 16.0);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().busy_ps(0); }) == 500'000u);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().idle(); }));
    sim.advance(1s);
    BOOST_TEST(!aborted.report.has_value());
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().busy_ps(0); }) == 500'000u); // nothing more moved

    kernel_run next;
    start_kernel(sim, k, next);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(next.report.has_value());
    BOOST_TEST(next.report->dma.busy_ps == 2'000'000u);
}

BOOST_AUTO_TEST_CASE(each_engine_counts_its_own_slices_across_many_run_shapes) {
    // Transfer i spans engines 0..i with one partition each: engine e moves
    // a slice of every transfer from i = e on. Twelve shapes of run, more
    // than the shared entries the engines keep before they split them.
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    constexpr std::uint32_t transfers = 12;
    constexpr std::uint64_t bytes = 4096;
    for (std::uint32_t i = 0; i < transfers; ++i) {
        stream(k, engine_kind::sync).push_back(dma(memory_kind::hbm, memory_kind::sbuf, i + 1, bytes, i + 1));
    }
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    for (std::uint32_t e = 0; e < transfers; ++e) {
        const auto moved = on_core(sim, [e](neuron_core& c) { return c.dma().bytes_moved(e); });
        const auto hbm = on_core(sim, [e](neuron_core& c) { return c.dma().hbm_bytes_moved(e); });
        BOOST_TEST(moved == (transfers - e) * bytes, "engine " << e);
        BOOST_TEST(hbm == moved, "engine " << e);
    }
    // Every slice of one partition takes as long: busy time follows the count.
    const auto busy_last = on_core(sim, [](neuron_core& c) { return c.dma().busy_ps(transfers - 1); });
    BOOST_TEST(busy_last > 0u);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().busy_ps(0); }) == transfers * busy_last);
    BOOST_TEST(on_core(sim, [](neuron_core& c) { return c.dma().bytes_moved(transfers); }) == 0u);
    BOOST_TEST(run.report->dma.bytes == transfers * (transfers + 1) / 2 * bytes);
}

BOOST_AUTO_TEST_CASE(a_transfer_times_the_same_however_much_moved_before_it) {
    // A small odd transfer, then 2^16 of 512 GB through one engine (43 s
    // each, 33 days in all), then the small one again: it takes as long.
    simulation sim(stepped("trn1.2xlarge"));
    const auto small_one = [&sim] {
        kernel k;
        stream(k, engine_kind::sync).push_back(dma(memory_kind::hbm, memory_kind::sbuf, 100, 1023));
        kernel_run run;
        const auto start = sim.call([](platform&) { return sc_core::sc_time_stamp().value(); });
        start_kernel(sim, k, run);
        sim.advance(1s);
        BOOST_TEST_REQUIRE(run.report.has_value());
        return std::pair{run.report->dma.busy_ps, run.end_ps - start};
    };
    const auto first = small_one();

    kernel big;
    auto& sync = stream(big, engine_kind::sync);
    sync.begin_loop(1u << 16);
    sync.push_back(dma(memory_kind::hbm, memory_kind::hbm, 128, 4'000'000'000, 1));
    sync.end_loop();
    kernel_run between;
    run_options options;
    options.timeout_ps = UINT64_MAX;
    start_kernel(sim, big, between, options);
    sim.advance(std::chrono::hours(24 * 40));
    BOOST_TEST_REQUIRE(between.report.has_value());

    const auto again = small_one();
    BOOST_TEST(again.first == first.first);   // busy
    BOOST_TEST(again.second == first.second); // from its start to its end
}

BOOST_AUTO_TEST_CASE(a_transfer_on_idle_engines_moves_once_it_has_reached_them_all) {
    // trn2: a 16-engine transfer finds them idle and reaches them 25 ns
    // apart, so its data ends 375 ns after its work would; a second one,
    // queued behind it, reaches them while they move the first's data and
    // ends its work after the first's. A one-engine transfer pays nothing.
    simulation sim(stepped("trn2.48xlarge"));
    const auto end_of = [&sim](const kernel& k) {
        kernel_run run;
        const auto start = sim.call([](platform&) { return sc_core::sc_time_stamp().value(); });
        start_kernel(sim, k, run);
        sim.advance(1s);
        BOOST_TEST_REQUIRE(run.report.has_value());
        return run.end_ps - start;
    };
    const auto work_ps = 2'000'000u; // 8 descriptors an engine of 5622 + 128 bytes at 23 B/ns
    const auto copy = dma(memory_kind::hbm, memory_kind::sbuf, 128, 5622);
    kernel one;
    stream(one, engine_kind::sync).push_back(copy);
    BOOST_TEST(end_of(one) == 1'300'000u + 375'000u + work_ps);

    kernel two = one;
    stream(two, engine_kind::sync).push_back(copy);
    // the second arrives 64 cycles (53 ns) after the first, to busy engines
    BOOST_TEST(end_of(two) == 1'300'000u + 375'000u + 2 * work_ps);

    kernel alone;
    stream(alone, engine_kind::sync).push_back(dma(memory_kind::hbm, memory_kind::sbuf, 1, trn2_bytes_in(2000), 1));
    BOOST_TEST(end_of(alone) == 1'300'000u + work_ps);
}

BOOST_AUTO_TEST_CASE(a_transfer_arriving_while_some_of_its_engines_are_busy_starts_on_the_others) {
    // trn2: X holds engine 0 from 1300 ns for 5 us; Y, one partition on
    // each of 16 engines, arrives 53 ns after it. Its 15 slices on idle
    // engines move at once (1 us each, queued: no stagger); the one on
    // engine 0 waits for X.
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    auto x = dma(memory_kind::hbm, memory_kind::sbuf, 1, trn2_bytes_in(5'000), 1);
    x.signal_semaphore = 0;
    auto y = dma(memory_kind::sbuf, memory_kind::sbuf, 16, trn2_bytes_in(1'000));
    y.signal_semaphore = 1;
    stream(k, engine_kind::sync).push_back(x);
    stream(k, engine_kind::sync).push_back(y);
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(2'300ns);
    BOOST_TEST(semaphore(sim, 1) == 0u);
    sim.advance(100ns); // Y's 15 slices end at 1353 + 1000 ns
    BOOST_TEST(semaphore(sim, 1) == 15u);
    BOOST_TEST(semaphore(sim, 0) == 0u);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(semaphore(sim, 0) == 1u);
    BOOST_TEST(semaphore(sim, 1) == 16u);
    BOOST_TEST(run.end_ps == 1'300'000u + 5'000'000u + 1'000'000u); // Y's last slice after X
}

BOOST_AUTO_TEST_CASE(transfers_arriving_together_queue_in_their_issuers_order) {
    // trn2: Scalar, GpSimd and Sync (all at 1.2 GHz) each issue a transfer
    // on queue 0 of one engine as their first instruction, so all three
    // arrive in the same picosecond: they move in engine order (scalar,
    // gpsimd, sync), 2, 2 and 1 us, whatever order the engines ran in.
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    const auto on = [&k](engine_kind e, std::uint64_t ns, std::uint32_t semaphore) {
        auto copy = dma(memory_kind::sbuf, memory_kind::sbuf, 1, trn2_bytes_in(ns), 1);
        copy.signal_semaphore = semaphore;
        stream(k, e).push_back(copy);
    };
    on(engine_kind::sync, 1'000, 0);
    on(engine_kind::gpsimd, 2'000, 1);
    on(engine_kind::scalar, 2'000, 2);
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(5'000ns); // scalar's ended at about 3.3 us
    BOOST_TEST(semaphore(sim, 2) == 1u);
    BOOST_TEST(semaphore(sim, 1) == 0u);
    BOOST_TEST(semaphore(sim, 0) == 0u);
    sim.advance(1'000ns); // gpsimd's at about 5.3 us
    BOOST_TEST(semaphore(sim, 1) == 1u);
    BOOST_TEST(semaphore(sim, 0) == 0u);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(semaphore(sim, 0) == 1u);
}

BOOST_AUTO_TEST_CASE(each_contiguous_run_of_a_partition_is_a_descriptor_of_its_own) {
    // trn2, one engine: 8 partitions of 4096 bytes cost 8 x (4096 + 128)
    // bytes at 23 B/ns in one run each; in runs of 512 bytes, 8 x (4096 +
    // 8 x 128).
    simulation sim(stepped("trn2.48xlarge"));
    const auto busy = [&sim](std::uint64_t contiguous) {
        kernel k;
        auto copy = dma(memory_kind::hbm, memory_kind::sbuf, 8, 4096, 1);
        copy.contiguous_bytes = contiguous;
        stream(k, engine_kind::sync).push_back(copy);
        kernel_run run;
        start_kernel(sim, k, run);
        sim.advance(1s);
        BOOST_TEST_REQUIRE(run.report.has_value());
        return run.report->dma.busy_ps;
    };
    BOOST_TEST(busy(0) == (8 * (4096 + 128) * 1000 + 22) / 23);
    BOOST_TEST(busy(512) == (8 * (4096 + 8 * 128) * 1000 + 22) / 23);
}
