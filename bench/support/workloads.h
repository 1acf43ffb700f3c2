#pragma once

// Workloads the simulation benchmarks run.

#include "neuron/model/program/kernel.h"

#include <cstdint>

namespace neuron::bench {

// A layer a core might run, repeated `blocks` times: two DMA loads (sync),
// four matmuls accumulating into PSUM once both landed (tensor), an
// activation reading PSUM (scalar) and a copy (vector). 8 instructions a
// block, with the semaphores a compiler would insert.
model::kernel synthetic_layer(std::uint32_t blocks);

// The same layer written as a kernel writes it: one loop per engine, each
// trip waiting for the next signal of its producer (its text is 8
// instructions, whatever `blocks`).
model::kernel looped_layer(std::uint64_t blocks);

} // namespace neuron::bench
