#pragma once

#include "neuron/model/program/compiled_model.h"
#include "neuron/protocol/messages.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::control {

using model::device_print;
using model::fault_trigger;
using model::print_fill;
using model::trigger_kind;

// An emulated model: what `nrt_load` accepts instead of a NEFF
// (runtime_shim/MODEL_FILE.md documents the format): what the model runs,
// and the tensors the runtime shows.
struct model_definition : model::compiled_model {
    std::vector<protocol::model_tensor> tensors; // inputs, then outputs
};

using protocol::max_model_file_bytes;
// A model file's YAML nodes, aliases counted as what they repeat: yaml-cpp
// holds about 400 bytes a node, so a file at the limit takes ~400 MB while
// it is read (a few seconds).
inline constexpr std::uint64_t max_model_file_nodes = 1'000'000;

// Parses a model file. Errors are common::yaml_error with
// "source:line:column: " and the bad key or value; unknown keys are refused
// with the closest valid one suggested. A text over max_model_file_bytes, or
// of more than max_model_file_nodes, is refused before any node is built.
model_definition parse_model_file(std::string_view text, std::string source = "model");

// True when the bytes look like a model file at all (its first key is
// `neuron_emu_model`); a real NEFF does not. Bytes beyond one message are
// not parsed here: the marker alone decides.
bool looks_like_model_file(std::string_view bytes);

} // namespace neuron::control
