#pragma once

#include <cstdint>

// What one instruction costs its engine, in that engine's cycles: the
// initiation interval of back-to-back instructions (throughput, not
// latency). Every formula is the one the NKI ISA documents for the
// instruction ("Estimated instruction cost"), engines.md A.3; N is the free
// size (elements per partition); the partition count does not change a
// cost (A.5).
namespace neuron::model::costs {

inline constexpr std::uint64_t min_ii = 64;          // MIN_II, A.3
inline constexpr std::uint64_t gpsimd_start = 150;   // GPSIMD_START, A.3
inline constexpr std::uint64_t min_ii_dynamic = 600; // MIN_II_DYNAMIC, A.3

// A dependent instruction: one that waits on a semaphore starts this many
// of its engine's cycles after the semaphore last changed (read-after-write
// latency). From the measured 264-cycle initiation interval of dependent
// 1-element ScalarE activations on NC-v2 (189 ns at 1.4 GHz, A.5, A.7)
// less their MIN_II of 64; A.5 infers 100-200 cycles.
inline constexpr std::uint64_t dependency_cycles = 200;

// DMA (A.6). The DMA instruction occupies the engine that issues it for
// dma_instruction_ns (HWDGE, ~600 ns); the transfer starts moving data
// dma_start_ns after that instruction began (descriptor setup plus
// semaphore-to-start, ~1300 ns). Each descriptor (one per partition) costs
// its bytes plus dma_descriptor_bytes at the engine's rate: 50% efficient
// at 128 B per partition, 94% at 2 KiB, 97% at 4 KiB ("overhead-bound
// below 256 B, near peak from 2 KiB, saturated from 4 KiB").
inline constexpr std::uint64_t dma_instruction_ns = 600;
inline constexpr std::uint64_t dma_start_ns = 1300;
inline constexpr std::uint64_t dma_descriptor_bytes = 128;

enum class element_type : std::uint8_t { fp8, bf16, fp16, tf32, fp32, int8, int16, int32 };

std::uint64_t element_bytes(element_type type);

// nc_matmul: max(min(64, N_stationary), N_moving); 4x for fp32 (A.3, A.4:
// one moving column per cycle, LoadStationary in the background).
std::uint64_t nc_matmul(std::uint64_t stationary_free, std::uint64_t moving_free, element_type type);

// nc_transpose on the Tensor engine: max(P, min(64, F)) (A.3).
std::uint64_t nc_transpose_tensor(std::uint64_t partitions, std::uint64_t free);
// nc_transpose on the Vector engine (tiles up to 32x32): max(MIN_II, N) (A.3).
std::uint64_t nc_transpose_vector(std::uint64_t n);

// activation: max(MIN_II, N); scale, bias and the fused reduce are free (A.3).
std::uint64_t activation(std::uint64_t n);
// activation_reduce: Activate + ActReadAccumulator, max(MIN_II, N) + MIN_II (A.3).
std::uint64_t activation_reduce(std::uint64_t n);

// tensor_tensor: max(MIN_II, N) when one input is in PSUM and the other in
// SBUF, or for an all-bf16 contiguous SBUF add/mul/sub; else max(MIN_II, 2N) (A.3).
std::uint64_t tensor_tensor(std::uint64_t n, bool one_input_in_psum, bool all_bf16_simple_arith);
// tensor_scalar: max(MIN_II, N), one operator or two (A.3).
std::uint64_t tensor_scalar(std::uint64_t n);
// tensor_reduce: N/2 for bf16 in and out with add or max, else N (A.3).
std::uint64_t tensor_reduce(std::uint64_t n, bool bf16_add_or_max);
// tensor_copy: max(MIN_II, N) (A.3).
std::uint64_t tensor_copy(std::uint64_t n);
// memset: max(MIN_II, N/2) for zero into bf16/fp16, else max(MIN_II, N) (A.3).
std::uint64_t memset(std::uint64_t n, bool zero_into_16_bit_float);
// iota (GpSimd): GPSIMD_START + N (A.3).
std::uint64_t iota(std::uint64_t n);

} // namespace neuron::model::costs
