#pragma once

// A model file's `program:` that asks a generator for its streams
// (`generate: tiled_matmul`, `elementwise` or `dma_copy`, with their
// parameters; runtime_shim/MODEL_FILE.md).

#include "neuron/common/yaml_fields.h"
#include "neuron/model/program/kernel.h"

namespace neuron::control {

// Reads `program` (a map with `generate:`) and writes the generated streams
// into `into`, each instruction placed at the program's position for
// errors. Throws common::yaml_error, with the position of what is wrong.
void read_generator(const common::yaml_fields& fields, const YAML::Node& program, model::kernel& into);

} // namespace neuron::control
