#define BOOST_TEST_MODULE hardware_figures
#include "kernel_runs.h"
#include "neuron/model/spec/device_spec.h"

#include <boost/test/unit_test.hpp>

#include <cmath>

// The figures AWS publishes or measured on real hardware (engines.md A.4-A.7),
// reproduced by kernels running on the model in stepped time. docs/hardware-
// figures.md holds the same table with the model's values.

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

double relative_error(double model, double figure) { return std::abs(model - figure) / figure; }

kernel_run run_to_end(simulation& sim, const kernel& k) {
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    return run;
}

double matmul_tflops(const char* instance) {
    simulation sim(stepped(instance));
    kernel k;
    for (int i = 0; i < 10'000; ++i) stream(k, engine_kind::tensor).push_back(matmul(128, 512));
    const auto run = run_to_end(sim, k);
    BOOST_TEST(run.report->macs == 10'000ull * 128 * 128 * 512);
    return 2.0 * static_cast<double>(run.report->macs) / (static_cast<double>(run.end_ps) * 1e-12) / 1e12;
}

// DMA time of one engine moving `partitions` descriptors of `bytes` from HBM to SBUF.
double dma_ns(simulation& sim, std::uint32_t partitions, std::uint64_t bytes) {
    kernel k;
    stream(k, engine_kind::sync).push_back(dma(memory_kind::hbm, memory_kind::sbuf, partitions, bytes, 1));
    const auto run = run_to_end(sim, k);
    return static_cast<double>(run.report->dma.busy_ps) / 1000.0;
}

} // namespace

// engines-calibration.md K1: 12.4-12.8 us of a trivial kernel's total_time
// lie outside every engine on trn2.
BOOST_AUTO_TEST_CASE(an_execution_spends_12_6_us_outside_every_engine_on_trn2) {
    auto config = stepped("trn2.48xlarge");
    config.execution_overhead = true;
    simulation sim(config);
    const auto run = run_to_end(sim, kernel{});
    // Its engines run only their preambles (K1), 64 instructions of 25 ns each.
    const auto& c = spec_of(device_kind::trainium2).costs();
    const auto outside =
        run.end_ps - c.engine_preamble_instructions.value * c.engine_preamble_instruction_ns.value * 1000;
    BOOST_TEST(outside >= 12'400'000u);
    BOOST_TEST(outside <= 12'800'000u);
}

// engines-calibration.md K1: Vector ran 66 instructions with two adds and 65
// with one, about 1.6 us of its active time beyond the adds'.
BOOST_AUTO_TEST_CASE(every_engine_runs_about_64_preamble_instructions_in_1_6_us_on_trn2) {
    const auto& c = spec_of(device_kind::trainium2).costs();
    BOOST_TEST(c.engine_preamble_instructions.value >= 63u);
    BOOST_TEST(c.engine_preamble_instructions.value <= 65u);
    const auto ns = c.engine_preamble_instructions.value * c.engine_preamble_instruction_ns.value;
    BOOST_TEST(ns >= 1'560u); // (3.64 - 2.08) us of FREE_DIM 2000
    BOOST_TEST(ns <= 1'710u); // (3.79 - 2.08) us of FREE_DIM 1000
}

BOOST_AUTO_TEST_CASE(a_stream_of_bf16_matmuls_reaches_91_75_tflops_on_a_trn1_core) {
    BOOST_TEST(relative_error(matmul_tflops("trn1.2xlarge"), 91.75) < 0.01);
}

BOOST_AUTO_TEST_CASE(a_stream_of_bf16_matmuls_reaches_78_6_tflops_on_a_trn2_core) {
    BOOST_TEST(relative_error(matmul_tflops("trn2.48xlarge"), 78.6) < 0.01);
}

BOOST_AUTO_TEST_CASE(one_dma_engine_moves_32_kib_from_hbm_to_sbuf_in_1416_ns_on_trn2) {
    // 8 partitions of 4 KiB: one engine's default share of a transfer.
    simulation sim(stepped("trn2.48xlarge"));
    BOOST_TEST(relative_error(dma_ns(sim, 8, 4096), 1416.0) < 0.05);
}

BOOST_AUTO_TEST_CASE(a_transfer_on_idle_dma_engines_spans_their_work_plus_0_35_to_0_42_us_on_trn2) {
    // engines-calibration.md K1 (FREE_DIM 2000): three 1 MB transfers, one
    // after another, each span 0.35 us more than their 16 engines' summed
    // packet time gives each; FREE_DIM 1000's leave 0.42 us.
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    stream(k, engine_kind::sync).push_back(dma(memory_kind::hbm, memory_kind::sbuf, 128, 8000));
    const auto run = run_to_end(sim, k);
    const auto span_ns = static_cast<double>(run.report->dma.busy_ps) / 1000.0 / 16; // summed over the engines
    const auto work_ns = 8.0 * (8000 + 128) / 23.0;
    BOOST_TEST(span_ns - work_ns >= 350.0);
    BOOST_TEST(span_ns - work_ns <= 420.0);
}

BOOST_AUTO_TEST_CASE(a_dma_transpose_moves_at_90_percent_of_a_copy_and_sbuf_to_sbuf_at_50_on_trn2) {
    // A.6 (trn2/trn3 guides): DMA transpose up to 90% of copy throughput,
    // SBUF->SBUF transpose up to 50%. One engine's 8 partitions of 4 KiB.
    simulation sim(stepped("trn2.48xlarge"));
    const auto ns_of = [&sim](memory_kind from, bool transpose) {
        kernel k;
        auto copy = dma(from, memory_kind::sbuf, 8, 4096, 1);
        copy.dma_transpose = transpose;
        copy.dtype = costs::element_type::bf16;
        stream(k, engine_kind::sync).push_back(copy);
        return static_cast<double>(run_to_end(sim, k).report->dma.busy_ps) / 1000.0;
    };
    BOOST_TEST(ns_of(memory_kind::hbm, false) / ns_of(memory_kind::hbm, true) == 0.9,
               boost::test_tools::tolerance(0.001));
    BOOST_TEST(ns_of(memory_kind::sbuf, false) / ns_of(memory_kind::sbuf, true) == 0.5,
               boost::test_tools::tolerance(0.001));
}

BOOST_AUTO_TEST_CASE(trn1s_dma_engines_reach_about_70_percent_of_their_rate_on_long_transfers) {
    // A.6 (perf guide): close to 70% on Trn1/Inf2; K5 moves 4 KiB rows at
    // 65% of 16 x 17 B/ns. One engine's 8 partitions of 4 KiB: 68%.
    simulation sim(stepped("trn1.2xlarge"));
    const auto efficiency = static_cast<double>(8 * 4096) / 17.0 / dma_ns(sim, 8, 4096);
    BOOST_TEST(efficiency > 0.65);
    BOOST_TEST(efficiency < 0.70);
}

BOOST_AUTO_TEST_CASE(dma_efficiency_is_overhead_bound_below_256_bytes_and_near_peak_from_2_kib) {
    // Efficiency: the engine's peak time for the bytes over the time taken.
    simulation sim(stepped("trn2.48xlarge"));
    const auto efficiency = [&sim](std::uint64_t bytes) {
        const auto ideal_ns = static_cast<double>(64 * bytes) / 23.0;
        return ideal_ns / dma_ns(sim, 64, bytes);
    };
    double previous = 0;
    for (const std::uint64_t bytes : {64, 128, 256, 512, 1024, 2048, 4096, 8192}) {
        const auto e = efficiency(bytes);
        BOOST_TEST(e > previous); // it only improves with size
        previous = e;
    }
    BOOST_TEST(efficiency(128) < 0.51);
    BOOST_TEST(efficiency(256) < 0.7);
    BOOST_TEST(efficiency(2048) >= 0.9);
    BOOST_TEST(efficiency(4096) >= 0.95);
}

BOOST_AUTO_TEST_CASE(a_hwdge_dma_instruction_takes_600_ns_and_data_moves_1300_ns_after_it_began) {
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    auto copy = dma(memory_kind::hbm, memory_kind::sbuf, 1, 23 * 1000 - 128, 1); // 1 us of transfer
    copy.signal_semaphore = 0;
    copy.trigger = dma_trigger::hardware;
    stream(k, engine_kind::sync).push_back(copy);
    kernel_run run;
    start_kernel(sim, k, run);
    const auto busy = [&sim](auto read) { return sim.call([read](platform& p) { return read(p.device(0).core(0)); }); };
    const auto sync_busy = [](neuron_core& c) { return c.find_engine(engine_kind::sync)->busy_ps(); };
    const auto dma_busy = [](neuron_core& c) { return c.dma().busy_ps(0); };
    sim.advance(1300ns);
    BOOST_TEST(busy(sync_busy) == 600'000u); // the instruction ended at 600 ns
    BOOST_TEST(busy(dma_busy) == 0u);        // data starts moving now
    sim.advance(500ns);
    BOOST_TEST(busy(dma_busy) == 500'000u);
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(0).semaphores().value(0); }) == 0u);
    sim.advance(500ns);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(run.end_ps == 2'300'000u);
    BOOST_TEST(sim.call([](platform& p) { return p.device(0).core(0).semaphores().value(0); }) == 1u);
}

// engines-calibration.md K2: a static trigger costs its engine tens of ns
// (~57 ns on Sync at 1.2 GHz); the data still moves 1.3 us after it began.
BOOST_AUTO_TEST_CASE(a_static_dma_trigger_takes_tens_of_ns_and_data_moves_1300_ns_after_it_began) {
    simulation sim(stepped("trn2.48xlarge"));
    kernel k;
    auto copy = dma(memory_kind::hbm, memory_kind::sbuf, 1, 23 * 1000 - 128, 1); // 1 us of transfer
    stream(k, engine_kind::sync).push_back(copy);
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    const auto trigger_ps = run.report->busy_ps[static_cast<std::size_t>(engine_kind::sync)];
    BOOST_TEST(trigger_ps == 53'333u); // 64 cycles at 1.2 GHz
    BOOST_TEST(relative_error(static_cast<double>(trigger_ps), 57'000.0) < 0.1);
    BOOST_TEST(run.end_ps == 2'300'000u);
}

BOOST_AUTO_TEST_CASE(dependent_one_element_activations_issue_every_189_ns_on_nc_v2) {
    simulation sim(stepped("trn1.2xlarge"));
    kernel k;
    constexpr std::uint32_t n = 1000;
    for (std::uint32_t i = 0; i < n; ++i) {
        auto act = op_of(opcode::activation, 1, 1);
        if (i > 0) {
            act.wait_semaphore = 0; // reads what the previous one wrote
            act.wait_value = i;
        }
        act.signal_semaphore = 0;
        stream(k, engine_kind::scalar).push_back(act);
    }
    const auto run = run_to_end(sim, k);
    const auto first_ps = 64 * 1'000'000'000'000.0 / 1.4e9;
    const auto interval_ns = (static_cast<double>(run.end_ps) - first_ps) / (n - 1) / 1000.0;
    BOOST_TEST(relative_error(interval_ns, 189.0) < 0.01);
}

BOOST_AUTO_TEST_CASE(transfers_share_device_memory_fairly_and_speed_up_when_one_ends) {
    // inf1: 54 B/ns of DRAM for 12 DMA engines of 17 B/ns. One core's three
    // engines (51 B/ns) run at full rate; with a second core's three, the six
    // get 9 B/ns each until the shorter transfers end. Each transfer finds
    // its engines idle: they are reached 25 ns apart, 50 ns of the engine's
    // time (850 bytes at 17 B/ns) more for each slice.
    simulation sim(stepped("inf1.2xlarge"));
    kernel alone;
    stream(alone, engine_kind::vector).push_back(dma(memory_kind::hbm, memory_kind::sbuf, 3, 17 * 1000 - 128, 3));
    kernel_run first;
    start_kernel(sim, alone, first, 0);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(first.report.has_value());
    BOOST_TEST(first.report->dma.busy_ps == 3'150'000u); // 1 us and 50 ns on each of the 3 engines

    kernel_run a;
    kernel_run b;
    kernel half = alone;
    stream(half, engine_kind::vector)[0].free = (17 * 1000 - 128) / 2 - 64; // half the work
    const auto start = static_cast<std::uint64_t>(sim.call([](platform&) { return sc_core::sc_time_stamp().value(); }));
    start_kernel(sim, alone, a, 0);
    start_kernel(sim, half, b, 1);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(a.report.has_value());
    BOOST_TEST_REQUIRE(b.report.has_value());
    // b's half (8500 + 850 B each) at 9 B/ns: 1039 ns; a's first 9350 B
    // likewise, then its other 8500 B alone at 17 B/ns: 500 ns more.
    const auto dma_start = start + 1'300'000;
    BOOST_TEST(std::abs(static_cast<double>(b.end_ps - dma_start) - 1'038'889.0) < 2.0);
    BOOST_TEST(std::abs(static_cast<double>(a.end_ps - dma_start) - 1'538'889.0) < 2.0);
}

// engines-calibration.md K2: on trn2 a 128x128 fp32 transpose, alone
// between DMAs, takes about 254 ns under the TensorE current limit; its 256
// cycles at 2.4 GHz are 107 ns at full speed. Only NC-v3 has the limit.
BOOST_AUTO_TEST_CASE(a_lone_fp32_transpose_runs_under_trn2s_current_limit_as_k2_shows) {
    auto config = stepped("trn2.48xlarge");
    config.tensor_throttle = true;
    simulation sim(config);
    kernel k;
    auto t = op_of(opcode::nc_transpose, 128, 128);
    t.dtype = costs::element_type::fp32;
    t.to = memory_kind::psum;
    stream(k, engine_kind::tensor).push_back(t);
    const auto run = run_to_end(sim, k);
    const auto ns = static_cast<double>(run.report->busy_ps[static_cast<std::size_t>(engine_kind::tensor)]) / 1000.0;
    BOOST_TEST(ns > 2 * 107);
    BOOST_TEST(relative_error(ns, 254) < 0.2);
    BOOST_TEST(spec_of(device_kind::trainium2).costs().has_tensor_throttle);
    BOOST_TEST(!spec_of(device_kind::trainium).costs().has_tensor_throttle);
    BOOST_TEST(!spec_of(device_kind::inferentia2).costs().has_tensor_throttle);
}
