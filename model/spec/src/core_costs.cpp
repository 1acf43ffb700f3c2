#include "neuron/model/spec/core_costs.h"

#include <array>

namespace neuron::model {
namespace {

// The NKI ISA's constants and the DMA figures have one source for NC-v2 and
// NC-v3 (engines.md A.3, A.6); NKI does not run on NC-v1, whose programs take
// NC-v2's figures unmeasured.
constexpr cost_figure min_ii{64, "engines.md A.3: MIN_II ~ 64 cycles", 10};
constexpr cost_figure gpsimd_start{150, "engines.md A.3: GPSIMD_START ~ 150 cycles", 10};
constexpr cost_figure min_ii_dynamic{600, "engines.md A.3: MIN_II_DYNAMIC ~ 600 cycles", 10};
constexpr cost_figure fp32_matmul_passes{4, "engines.md A.3: nc_matmul costs 4x for fp32", 0};
constexpr cost_figure fp32_transpose_passes{4, "TensorE fp32 passes: as nc_matmul's (engines.md A.3)", 25};
constexpr cost_figure nc_v3_fp32_transpose_passes{
    2,
    "engines.md A.4: NC-v3 transpose mode, 2x faster fp32 transpose; K2's 254 ns per 128x128 tile under a 0.38 "
    "throttle limit agrees",
    25};
constexpr cost_figure scalar_4_byte_element_cycles{
    2,
    "engines-calibration.md K2: fp32 PSUM->SBUF copy of 128 elements ~220 ns at 1.2 GHz (2.1 N); K5: fp32 exp "
    "of 512 ~937 ns at 1.4 GHz (2.6 N)",
    25};
// K5 (trn1, fp32): exp on [128, 512] takes ~937 ns, 2.56 cycles per
// element at 1.4 GHz, where a copy takes 2 (K2).
constexpr cost_figure scalar_4_byte_lookup_percent{
    128, "engines-calibration.md K5: fp32 exp of 512 ~937 ns at 1.4 GHz (2.56 N) against a copy's 2 N (K2)", 30};
// engines.md A.3 gives 8N, but K5's Vector time (trn1, fp32) holds a
// tensor_scalar, a multiply and a reciprocal per [128, 512] in ~2.2 us:
// 8N alone would take 3.7 us. What it leaves the reciprocal is 2-4N.
constexpr cost_figure reciprocal_element_cycles{
    3, "engines-calibration.md K5: Vector time leaves 2-4 N (engines.md A.3 says 8 N, which K5 rules out)", 35};
constexpr cost_figure dependency_cycles{
    200, "engines.md A.5, A.7: 264-cycle II of dependent 1-element activations less MIN_II; A.5 infers 100-200", 50};
constexpr cost_figure dma_static_trigger_cycles{
    64, "engines-calibration.md K2: ~57 ns (Sync) and ~33 ns (GpSimd) per static trigger at 1.2 GHz, about MIN_II", 50};
constexpr cost_figure dma_instruction_ns{600, "engines.md A.6: HWDGE DMA instruction ~ 600 ns", 20};
constexpr cost_figure dma_start_ns{1300, "engines.md A.6: descriptor setup and semaphore-to-start ~ 1300 ns", 20};
constexpr cost_figure dma_descriptor_bytes{
    128, "engines.md A.6: 50% efficient at 128 B per partition, 94% at 2 KiB, 97% at 4 KiB", 20};
// K1's DMA engines were busy (the profile's summed packet time) 14.1 of
// 16 on average while DMA was active with FREE_DIM 2000, whose three
// transfers ran one after another (their times sum to the active time):
// each 1 MB transfer spans 0.35 us more than its engines' work, as if they
// started one after another, 23 ns apart. FREE_DIM 1000 leaves 0.42 us a
// transfer, 28 ns. A transfer on one engine has nothing to stagger: A.7's
// 32 KiB in 1416 ns.
constexpr cost_figure dma_engine_stagger_ns{
    25, "engines-calibration.md K1: dma_packet_time over dma_active_time, 0.35-0.42 us over 16 engines (trn2)", 30};
constexpr cost_figure nc_v2_dma_engine_stagger_ns{25, "K1's trn2 figure: not measured on NC-v2", 100};

// Trn1's DMA engines reach about 70% of their rate (A.6: the perf guide's
// "close 70% DMA throughput utilization" for large transfers on
// Trn1/Inf2); K5 moves 235 MB in 4 KiB rows at 176 GB/s, 65% of 16 x 17
// B/ns. Trn2's reach theirs: K1 moves 1 MB in 8000 B rows at 345 GB/s, the
// 94% that 128 B per descriptor leaves of 16 x 23 B/ns.
constexpr cost_figure nc_v2_dma_efficiency_percent{
    70, "engines.md A.6: close to 70% DMA throughput on Trn1/Inf2; engines-calibration.md K5: 65%", 15};
// A.6's 70% names Trn1/Inf2; Inferentia's engines keep nrt-api's rate.
constexpr cost_figure nc_v1_dma_efficiency_percent{100, "not measured: engines.md A.6's ~70% names Trn1 and Inf2 only",
                                                   100};
constexpr cost_figure nc_v3_dma_efficiency_percent{
    100, "engines-calibration.md K1: 345 GB/s of 1 MB transfers, 94% of 16 x 23 B/ns, all descriptors' overhead", 10};

constexpr cost_figure dma_transpose_percent{90, "engines.md A.6: DMA transpose up to 90% of copy throughput", 10};
constexpr cost_figure dma_sbuf_transpose_percent{50, "engines.md A.6: SBUF->SBUF transpose up to 50%", 10};

// K1 (engines-calibration.md): 12.4-12.8 us of a trivial kernel's
// total_time on trn2 lie outside every engine; NCL's floor of 12-20 us
// says NC-v2 pays about as much. How it splits before and after the
// engines is not measured: half each.
constexpr cost_figure execution_preamble_ns{
    6300, "engines-calibration.md K1: 12.4-12.8 us of total_time outside every engine (trn2), half before", 10};
constexpr cost_figure execution_postamble_ns{
    6300, "engines-calibration.md K1: 12.4-12.8 us of total_time outside every engine (trn2), half after", 10};
constexpr cost_figure nc_v2_execution_preamble_ns{
    6300, "K1's trn2 figure; NCL's 12-20 us floor of trivial kernels (engines-calibration.md) agrees", 30};
constexpr cost_figure nc_v2_execution_postamble_ns{
    6300, "K1's trn2 figure; NCL's 12-20 us floor of trivial kernels (engines-calibration.md) agrees", 30};

// K1, K2: every engine runs about 64 instructions before the kernel's own,
// even in a trivial kernel, inside its active time (Vector: 66 with two
// adds, 65 with one; Scalar: 128 with 64 copies). Vector's active time less
// its adds leaves 24-27 ns each.
constexpr cost_figure engine_preamble_instructions{
    64, "engines-calibration.md K1, K2: instruction counts less the kernel's (Vector 66 and 65, Scalar 128)", 5};
constexpr cost_figure engine_preamble_instruction_ns{
    25, "engines-calibration.md K1: Vector active time less its adds over 64 instructions, 24-27 ns (trn2)", 15};

// trn2's TensorE dI/dt throttle (engines.md, Throttling): below 50%
// utilization over any ~3 us window the limit re-engages and the next burst
// runs at roughly 50% until it ramps back up (tensor_throttle.h). K2
// measured the limit itself: 0.381 on average over the 15.5 us it was
// active, most of TensorE's 16.3 us, so its sparse bursts each started under
// it; how fast it ramps is not published.
constexpr cost_figure tensor_throttle_window_ns{
    3000, "engines.md Throttling: below 50% utilization over any ~3 us window the limit re-engages", 20};
constexpr cost_figure tensor_throttle_start_percent{
    38, "engines-calibration.md K2: throttle_avg_util_limit 0.381 (engines.md: roughly 50%)", 30};
constexpr cost_figure tensor_throttle_ramp_ns{
    30000, "not published; K2: the limit held near its start for 15.5 of TensorE's 16.3 us active", 100};

constexpr cost_figure unmeasured(cost_figure f) { return {f.value, "NC-v2's: no NKI figures for NC-v1", 100}; }

constexpr std::array tables{
    core_costs{core_generation::nc_v1,
               "NC-v1",
               unmeasured(min_ii),
               unmeasured(gpsimd_start),
               unmeasured(min_ii_dynamic),
               unmeasured(fp32_matmul_passes),
               unmeasured(fp32_transpose_passes),
               unmeasured(scalar_4_byte_element_cycles),
               unmeasured(scalar_4_byte_lookup_percent),
               unmeasured(reciprocal_element_cycles),
               unmeasured(dependency_cycles),
               unmeasured(dma_static_trigger_cycles),
               unmeasured(dma_instruction_ns),
               unmeasured(dma_start_ns),
               unmeasured(dma_descriptor_bytes),
               unmeasured(dma_engine_stagger_ns),
               nc_v1_dma_efficiency_percent,
               unmeasured(dma_transpose_percent),
               unmeasured(dma_sbuf_transpose_percent),
               unmeasured(execution_preamble_ns),
               unmeasured(execution_postamble_ns),
               unmeasured(engine_preamble_instructions),
               unmeasured(engine_preamble_instruction_ns),
               unmeasured(tensor_throttle_window_ns),
               unmeasured(tensor_throttle_start_percent),
               unmeasured(tensor_throttle_ramp_ns),
               false,
               false,
               false,
               false,
               false},
    core_costs{core_generation::nc_v2,
               "NC-v2",
               min_ii,
               gpsimd_start,
               min_ii_dynamic,
               fp32_matmul_passes,
               fp32_transpose_passes,
               scalar_4_byte_element_cycles,
               scalar_4_byte_lookup_percent,
               reciprocal_element_cycles,
               dependency_cycles,
               dma_static_trigger_cycles,
               dma_instruction_ns,
               dma_start_ns,
               dma_descriptor_bytes,
               nc_v2_dma_engine_stagger_ns,
               nc_v2_dma_efficiency_percent,
               dma_transpose_percent,
               dma_sbuf_transpose_percent,
               nc_v2_execution_preamble_ns,
               nc_v2_execution_postamble_ns,
               engine_preamble_instructions,
               engine_preamble_instruction_ns,
               tensor_throttle_window_ns,
               tensor_throttle_start_percent,
               tensor_throttle_ramp_ns,
               true,
               false,
               false,
               false,
               false},
    core_costs{core_generation::nc_v3,
               "NC-v3",
               min_ii,
               gpsimd_start,
               min_ii_dynamic,
               fp32_matmul_passes,
               nc_v3_fp32_transpose_passes,
               scalar_4_byte_element_cycles,
               scalar_4_byte_lookup_percent,
               reciprocal_element_cycles,
               dependency_cycles,
               dma_static_trigger_cycles,
               dma_instruction_ns,
               dma_start_ns,
               dma_descriptor_bytes,
               dma_engine_stagger_ns,
               nc_v3_dma_efficiency_percent,
               dma_transpose_percent,
               dma_sbuf_transpose_percent,
               execution_preamble_ns,
               execution_postamble_ns,
               engine_preamble_instructions,
               engine_preamble_instruction_ns,
               tensor_throttle_window_ns,
               tensor_throttle_start_percent,
               tensor_throttle_ramp_ns,
               false,
               true,
               true,
               true,
               true},
};

constexpr bool one_row_per_generation() {
    for (std::size_t i = 0; i < tables.size(); ++i) {
        if (static_cast<std::size_t>(tables[i].generation) != i) return false;
    }
    return true;
}
static_assert(one_row_per_generation());

} // namespace

std::array<core_costs::named_figure, 24> core_costs::figures() const {
    return {{{"min_ii", min_ii},
             {"gpsimd_start", gpsimd_start},
             {"min_ii_dynamic", min_ii_dynamic},
             {"fp32_matmul_passes", fp32_matmul_passes},
             {"fp32_transpose_passes", fp32_transpose_passes},
             {"scalar_4_byte_element_cycles", scalar_4_byte_element_cycles},
             {"scalar_4_byte_lookup_percent", scalar_4_byte_lookup_percent},
             {"reciprocal_element_cycles", reciprocal_element_cycles},
             {"dependency_cycles", dependency_cycles},
             {"dma_static_trigger_cycles", dma_static_trigger_cycles},
             {"dma_instruction_ns", dma_instruction_ns},
             {"dma_start_ns", dma_start_ns},
             {"dma_descriptor_bytes", dma_descriptor_bytes},
             {"dma_engine_stagger_ns", dma_engine_stagger_ns},
             {"dma_efficiency_percent", dma_efficiency_percent},
             {"dma_transpose_percent", dma_transpose_percent},
             {"dma_sbuf_transpose_percent", dma_sbuf_transpose_percent},
             {"execution_preamble_ns", execution_preamble_ns},
             {"execution_postamble_ns", execution_postamble_ns},
             {"engine_preamble_instructions", engine_preamble_instructions},
             {"engine_preamble_instruction_ns", engine_preamble_instruction_ns},
             {"tensor_throttle_window_ns", tensor_throttle_window_ns},
             {"tensor_throttle_start_percent", tensor_throttle_start_percent},
             {"tensor_throttle_ramp_ns", tensor_throttle_ramp_ns}}};
}

const core_costs& costs_of(core_generation generation) { return tables[static_cast<std::size_t>(generation)]; }

std::span<const core_costs> every_core_costs() { return tables; }

} // namespace neuron::model
