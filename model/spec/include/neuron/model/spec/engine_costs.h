#pragma once

#include "neuron/model/spec/core_costs.h"

#include <cstdint>

// What one instruction costs its engine, in that engine's cycles: the
// initiation interval of back-to-back instructions (throughput, not
// latency). Every formula is the one the NKI ISA documents for the
// instruction ("Estimated instruction cost"), engines.md A.3; N is the free
// size (elements per partition); the partition count does not change a
// cost (A.5). MIN_II and the other constants are the core generation's
// (core_costs.h).
namespace neuron::model::costs {

enum class element_type : std::uint8_t { fp8, bf16, fp16, tf32, fp32, int8, int16, int32 };

std::uint64_t element_bytes(element_type type);

// nc_matmul: max(min(64, N_stationary), N_moving), times the generation's
// fp32 passes for fp32 (A.3, A.4: one moving column per cycle,
// LoadStationary in the background).
std::uint64_t nc_matmul(const core_costs& c, std::uint64_t stationary_free, std::uint64_t moving_free,
                        element_type type);

// nc_transpose on the Tensor engine: max(P, min(64, F)) (A.3), times the
// generation's fp32 transpose passes for fp32 (A.4, K2).
std::uint64_t nc_transpose_tensor(const core_costs& c, std::uint64_t partitions, std::uint64_t free, element_type type);
// nc_transpose on the Vector engine (tiles up to 32x32): max(MIN_II, N) (A.3).
std::uint64_t nc_transpose_vector(const core_costs& c, std::uint64_t n);

// activation: max(MIN_II, N); scale, bias and the fused reduce are free (A.3).
std::uint64_t activation(const core_costs& c, std::uint64_t n);
// tensor_tensor_scan: max(MIN_II, 2N) (A.3).
std::uint64_t tensor_tensor_scan(const core_costs& c, std::uint64_t n);
// bn_stats: max(MIN_II, N), N at most 512 (A.3).
std::uint64_t bn_stats(const core_costs& c, std::uint64_t n);
// bn_aggr: max(MIN_II, 13 (N / 3)) (A.3).
std::uint64_t bn_aggr(const core_costs& c, std::uint64_t n);
// affine_select: GPSIMD_START + N (A.3).
std::uint64_t affine_select(const core_costs& c, std::uint64_t n);
// reciprocal: max(MIN_II, k N), k reciprocal_element_cycles (core_costs.h).
std::uint64_t reciprocal(const core_costs& c, std::uint64_t n);
// activation_reduce: Activate + ActReadAccumulator, max(MIN_II, N) + MIN_II (A.3).
std::uint64_t activation_reduce(const core_costs& c, std::uint64_t n);

// tensor_tensor: max(MIN_II, N) when one input is in PSUM and the other in
// SBUF (A.3), or for add/subtract/multiply of two SBUF inputs: A.3 gives it
// for all-bf16, and hardware adds fp32 SBUF tiles at about N cycles too (K1,
// engines-calibration.md); else max(MIN_II, 2N).
std::uint64_t tensor_tensor(const core_costs& c, std::uint64_t n, bool one_input_in_psum, bool sbuf_simple_arith);
// tensor_scalar: max(MIN_II, N), one operator or two (A.3).
std::uint64_t tensor_scalar(const core_costs& c, std::uint64_t n);
// scalar_tensor_tensor: N for bf16 subtract then multiply with N even, else
// 2N (A.3), at least MIN_II as every Vector instruction (K4).
std::uint64_t scalar_tensor_tensor(const core_costs& c, std::uint64_t n, bool bf16_subtract_multiply);
// tensor_scalar_reduce: max(MIN_II, N) + MIN_II (A.3).
std::uint64_t tensor_scalar_reduce(const core_costs& c, std::uint64_t n);
// tensor_reduce: N/2 for bf16 in and out with add or max, else N (A.3), at
// least MIN_II: no instruction costs less (K4 measures one-column Vector
// instructions at ~64 cycles, engines-calibration.md).
std::uint64_t tensor_reduce(const core_costs& c, std::uint64_t n, bool bf16_add_or_max);
// tensor_copy: max(MIN_II, N) (A.3).
std::uint64_t tensor_copy(const core_costs& c, std::uint64_t n);
// tensor_copy_predicated: max(MIN_II, 2N) when the data and its predicate
// are both in SBUF, else max(MIN_II, N) (A.3).
std::uint64_t tensor_copy_predicated(const core_costs& c, std::uint64_t n, bool both_in_sbuf);
// range_select: max(MIN_II, N) (A.3).
std::uint64_t range_select(const core_costs& c, std::uint64_t n);
// memset: max(MIN_II, N/2) for zero into bf16/fp16, else max(MIN_II, N) (A.3).
std::uint64_t memset(const core_costs& c, std::uint64_t n, bool zero_into_16_bit_float);
// iota (GpSimd): GPSIMD_START + N (A.3).
std::uint64_t iota(const core_costs& c, std::uint64_t n);

} // namespace neuron::model::costs
