#pragma once

// The model file's `program:` (runtime_shim/MODEL_FILE.md): instruction
// streams written per engine, or a generator and its parameters.

#include "neuron/common/yaml_fields.h"
#include "neuron/model/program/kernel.h"

#include <cstddef>
#include <memory>

namespace neuron::control {

// At most this many `print` instructions in a program (after `repeat`): each
// sends a debug event with its tensor (up to 1 MiB) on every execution.
inline constexpr std::size_t max_program_prints = 4096;
// The longest `source:` of an instruction ("kernel.py:12").
inline constexpr std::size_t max_source = 255;

// Reads `node` (the value of `program:`). Syntax and ranges only: which
// engine runs an opcode, semaphores that are never signalled and tiles
// beyond a device's memories are build_program's to refuse, with the
// positions recorded in kernel_op::at. Throws common::yaml_error.
std::shared_ptr<const model::kernel> read_program(const common::yaml_fields& fields, const YAML::Node& node);

} // namespace neuron::control
