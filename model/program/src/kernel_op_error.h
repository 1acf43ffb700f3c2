#pragma once

#include "neuron/model/program/kernel.h"

#include <string>
#include <string_view>

namespace neuron::model {

// Where `op` is written in `k`'s file: "FILE:LINE:COLUMN: ", or the file
// alone (or nothing) when it has no place.
std::string where(const kernel& k, const kernel_op& op);

// Refuses `op` with invalid_argument_error: "FILE:LINE:COLUMN: opcode: what".
[[noreturn]] void refuse(const kernel& k, const kernel_op& op, std::string_view what);

} // namespace neuron::model
