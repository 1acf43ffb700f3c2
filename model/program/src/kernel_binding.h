#pragma once

#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program.h"
#include "neuron/model/spec/device_spec.h"

#include <memory>

namespace neuron::model {

// The program `k` runs on a core of `spec`: each instruction's cost from
// engine_costs.h at its engine's clock, its DMA transfers, its prints.
// Checks it against the device first; errors are "FILE:LINE:COLUMN: ..."
// (unsupported_error for an engine the device lacks, else
// invalid_argument_error).
std::shared_ptr<const program> bind_kernel(const kernel& k, const device_spec& spec);

} // namespace neuron::model
