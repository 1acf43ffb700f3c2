#pragma once

#include "neuron/model/program/kernel.h"

#include <array>
#include <cstdint>
#include <vector>

// Kernels written by a program, so nobody writes 10^5 instructions by hand:
// pure functions from parameters to a kernel. Loads (and dma_copy's copies)
// are issued from `loads_on`, Sync unless told otherwise (Inferentia has no
// Sync engine); it must be an engine the kernel gives no other work. Each checks its parameters
// and throws invalid_argument_error naming the bad one. Every wait of a
// generated kernel is on a semaphore with at most the copies it waits for in
// flight, so a count reached means exactly those copies ended, whatever the
// order their DMA engines finish in.
namespace neuron::model {

// The SBUF bytes per partition a generator lays its buffers in unless told
// otherwise: the smallest SBUF of the generations with a program (trn1/inf2).
inline constexpr std::uint64_t default_sbuf_budget = 192 * 1024;

// A place in SBUF or PSUM an instruction reads: `partitions` partitions from
// 0, `bytes` bytes from `offset` in each. A kernel_op says only where its
// output goes; tests check the generators' buffer reuse with these.
struct tile_region {
    memory_kind memory = memory_kind::sbuf;
    std::uint32_t partitions = 0;
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
};

struct generated_kernel {
    kernel program;
    // With record_reads, per engine and instruction (parallel to
    // program.streams): what it reads on chip. Empty otherwise.
    std::array<std::vector<std::vector<tile_region>>, engine_count> reads;
};

// C[m, n] = A[m, k] x B[k, n]: per output tile [tile_m, tile_n], nc_matmuls
// over the k tiles accumulate into a PSUM bank (8 banks in turn); ScalarE
// moves the tile to SBUF (`activation`, or `tensor_copy` when activation is
// false) and issues its store to HBM. The Sync engine loads A^T in panels of
// as many m tiles as SBUF holds (once when all fit), in chunks, each chunk
// of the next panel as soon as the tiles of the panel before that read its
// place have ended, and B in column blocks of tile_n, two blocks in flight. Edge tiles are smaller; with a k edge an
// operand loads in two copies (its whole k tiles, then the edge's rows), so
// every byte of A and B is read once per load.
struct tiled_matmul_params {
    std::uint64_t m = 0, k = 0, n = 0;
    costs::element_type dtype = costs::element_type::bf16;
    std::uint32_t tile_m = 128; // stationary free size, at most 128
    std::uint32_t tile_k = 128; // contraction (partitions), at most 128
    std::uint32_t tile_n = 512; // moving free size, at most 512 (one PSUM bank of fp32)
    bool activation = false;
    std::uint32_t dma_engines = default_dma_engines;
    std::uint64_t sbuf_budget = default_sbuf_budget;
    engine_kind loads_on = engine_kind::sync; // issues the loads; an engine the kernel leaves idle
};
generated_kernel tiled_matmul(const tiled_matmul_params& p, bool record_reads = false);

// out = f(in) (or f(in, in2) for tensor_tensor) over a [rows, cols] tensor
// in HBM: tiles of 128 rows x tile_free columns are loaded by Sync into two
// SBUF buffers in turn, computed on the op's engine (activation: Scalar;
// tensor_scalar, tensor_tensor, tensor_copy: Vector) into two output
// buffers, and stored by that engine.
struct elementwise_params {
    std::uint64_t rows = 0, cols = 0;
    opcode op = opcode::activation;
    alu_op alu = alu_op::add; // tensor_tensor
    costs::element_type dtype = costs::element_type::bf16;
    std::uint32_t tile_free = 2048; // elements per partition per tile
    std::uint32_t dma_engines = default_dma_engines;
    std::uint64_t sbuf_budget = default_sbuf_budget;
    engine_kind loads_on = engine_kind::sync; // issues the loads; an engine the kernel leaves idle
};
generated_kernel elementwise(const elementwise_params& p, bool record_reads = false);

// `bytes` moved from one memory to another by dma_copy instructions issued
// on Sync, each [128 partitions, bytes_per_partition] (the remainder in one
// or two smaller copies). Into SBUF or PSUM the copies take turns over up to
// 8 buffers, a buffer reused once the copy before it there has ended.
struct dma_copy_params {
    std::uint64_t bytes = 0;
    std::uint64_t bytes_per_partition = 4096;
    memory_kind from = memory_kind::hbm;
    memory_kind to = memory_kind::sbuf;
    std::uint32_t dma_engines = default_dma_engines;
    std::uint64_t sbuf_budget = default_sbuf_budget;
    engine_kind loads_on = engine_kind::sync; // issues the loads; an engine the kernel leaves idle
};
generated_kernel dma_copy(const dma_copy_params& p, bool record_reads = false);

} // namespace neuron::model
