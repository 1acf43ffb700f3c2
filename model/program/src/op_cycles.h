#pragma once

#include "neuron/model/program/kernel.h"
#include "neuron/model/spec/core_costs.h"

#include <cstdint>

// What an instruction of the Vector, Scalar and GpSimd engines (and a
// Vector transpose) costs: its NKI formula (engine_costs.h) with the
// departures each generation shows (ScalarE's 4-byte elements, NC-v3's
// Vector performance mode).
namespace neuron::model {

// What a compute instruction reads and writes: tensor_tensor and its scan
// have two inputs.
bool two_inputs(const kernel_op& op);
bool touches(const kernel_op& op, memory_kind m);

// Engine cycles of `op`, already checked, on `on`: any compute
// instruction (not dma_copy or print).
std::uint64_t op_cycles(const core_costs& c, const kernel_op& op, engine_kind on);
// Whether `op` on `on` would cost otherwise with another dtype.
bool cost_depends_on_dtype(const core_costs& c, const kernel_op& op, engine_kind on);

} // namespace neuron::model
