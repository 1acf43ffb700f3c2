#define BOOST_TEST_MODULE generated_kernels
// The generated kernels on the model: they run to the end, and a well-tiled
// matmul keeps the Tensor engine near its peak.
#include "kernel_runs.h"

#include "neuron/model/program/kernel_generators.h"

#include <boost/test/unit_test.hpp>

#include <chrono>

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;

namespace {

kernel_run run_to_end(const char* instance, const kernel& k) {
    simulation sim(stepped(instance));
    kernel_run run;
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    return run;
}

// Achieved flops over the Tensor engine's peak: one moving column per cycle
// on 128 x 128 PEs (engines.md A.4).
double mfu(const kernel_run& run, double tensor_hz) {
    const double seconds = static_cast<double>(run.end_ps) * 1e-12;
    return 2.0 * static_cast<double>(run.report->macs) / seconds / (2.0 * 128 * 128 * tensor_hz);
}

double matmul_2048_mfu(const char* instance, double tensor_hz) {
    const auto k = tiled_matmul({.m = 2048, .k = 2048, .n = 2048, .activation = true}).program;
    const auto run = run_to_end(instance, k);
    BOOST_TEST(run.report->macs == 2048ull * 2048 * 2048);
    BOOST_TEST_MESSAGE(instance << ": " << static_cast<double>(run.end_ps) / 1e6 << " us, MFU " << mfu(run, tensor_hz));
    return mfu(run, tensor_hz);
}

} // namespace

// SystemC allows one simulation per process: one instance per test case.
BOOST_AUTO_TEST_CASE(a_tiled_2048_cubed_bf16_matmul_runs_near_peak_on_trn1) {
    // trn1's DMA reaches 70% of its rate (A.6), which leaves the first
    // loads and the last stores longer in the open: 84%. K3's TensorE-bound
    // matmul reaches 86% on hardware (engines-calibration.md).
    BOOST_TEST(matmul_2048_mfu("trn1.2xlarge", 2.8e9) > 0.8);
}

BOOST_AUTO_TEST_CASE(a_tiled_2048_cubed_bf16_matmul_runs_near_peak_on_trn2) {
    BOOST_TEST(matmul_2048_mfu("trn2.3xlarge", 2.4e9) > 0.9);
}

BOOST_AUTO_TEST_CASE(a_matmul_whose_a_takes_three_panels_loads_the_next_one_while_computing) {
    // A 64 KiB budget holds 7 of A's 16 m tiles: panels of 7, 7 and 2 m
    // tiles, B loaded once per panel. Each panel's A^T loads while the last
    // block of the panel before computes, so the Tensor engine barely waits:
    // 95% of its peak, as with A resident (it was 87% when a panel waited
    // for the whole panel before it to end).
    const auto k = tiled_matmul({.m = 2048, .k = 2048, .n = 2048, .sbuf_budget = 64 * 1024}).program;
    const auto run = run_to_end("trn2.3xlarge", k);
    BOOST_TEST(run.report->macs == 2048ull * 2048 * 2048);
    BOOST_TEST_MESSAGE("three panels: " << static_cast<double>(run.end_ps) / 1e6 << " us, MFU " << mfu(run, 2.4e9));
    BOOST_TEST(mfu(run, 2.4e9) > 0.92);
}

BOOST_AUTO_TEST_CASE(generators_run_on_inferentia_with_their_loads_on_an_idle_engine) {
    // NeuronCore-v1 has no Sync engine; Vector is idle in a tiled matmul.
    const auto k = tiled_matmul({.m = 512, .k = 512, .n = 1024, .loads_on = engine_kind::vector}).program;
    const auto run = run_to_end("inf1.xlarge", k);
    BOOST_TEST(run.report->macs == 512ull * 512 * 1024);
    BOOST_TEST(run.report->dma.hbm_bytes == (512ull * 512 + 512ull * 1024 + 512ull * 1024) * 2);
}

BOOST_AUTO_TEST_CASE(an_elementwise_layer_runs_to_the_end) {
    const auto k = elementwise({.rows = 1024, .cols = 4096, .op = opcode::tensor_tensor, .tile_free = 1024}).program;
    const auto run = run_to_end("trn2.3xlarge", k);
    BOOST_TEST(run.report->dma.hbm_bytes == 3 * 1024ull * 4096 * 2); // two inputs in, one output out
    BOOST_TEST_MESSAGE("elementwise: " << static_cast<double>(run.end_ps) / 1e6 << " us");
}

BOOST_AUTO_TEST_CASE(a_dma_copy_is_bound_by_the_dma_engines) {
    const auto k = dma_copy({.bytes = 64ull << 20, .bytes_per_partition = 8192}).program;
    const auto run = run_to_end("trn2.3xlarge", k);
    BOOST_TEST(run.report->dma.hbm_bytes == 64ull << 20);
    const auto bytes_per_ns = static_cast<double>(64ull << 20) / (static_cast<double>(run.end_ps) / 1000.0);
    BOOST_TEST_MESSAGE("dma_copy: " << static_cast<double>(run.end_ps) / 1e6 << " us, " << bytes_per_ns << " B/ns");
    BOOST_TEST(bytes_per_ns > 0.9 * 16 * 23); // 16 DMA engines at 23 B/ns on trn2 (engines.md A.6)
}
