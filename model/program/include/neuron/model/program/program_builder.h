#pragma once

#include "neuron/model/program/compiled_model.h"
#include "neuron/model/program/program.h"
#include "neuron/model/spec/device_spec.h"

#include <cstdint>
#include <memory>

namespace neuron::model {

// Picoseconds of `cycles` at `clock_hz`, rounded to the nearest.
std::uint64_t cycles_to_ps(std::uint64_t cycles, std::uint64_t clock_hz);
// Whole cycles of `clock_hz` in `ps`, rounded to the nearest.
std::uint64_t ps_to_cycles(std::uint64_t ps, std::uint64_t clock_hz);

// The program a compiled model runs on one device generation: its kernel
// (`program`), bound and checked against the device (errors are
// "FILE:LINE:COLUMN: ..."), or else its `work` cycles as one instruction on
// each engine that has some (the tensor engine's carries the MACs). Throws
// unsupported_error when it needs an engine the device lacks,
// invalid_argument_error when the kernel does not fit the device.
std::shared_ptr<const program> build_program(const compiled_model& m, const device_spec& spec);

} // namespace neuron::model
