#pragma once

// Element-wise reductions of gathered contributions (all-reduce and
// reduce-scatter): integers wrap, floats reduce in float, bfloat16 rounds
// back to nearest even.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace neuron::shim {

// Bytes per element of an nrt_dtype_t the reductions take; nothing for the
// others (float16 and the fp8 types are not emulated).
std::optional<std::size_t> reducible_size(long long dtype);
// NRT_OP_ADD, MAX or MIN.
bool reducible_op(long long op);

// Reduces `ranks` consecutive blocks of `bytes` each in `gathered` into `out`.
void reduce_blocks(long long dtype, long long op, const std::string& gathered, std::size_t ranks, std::size_t bytes,
                   std::uint8_t* out);

} // namespace neuron::shim
