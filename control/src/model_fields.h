#pragma once

// Readers for the values a model file writes in more than one place (a
// top-level `prints:` entry and a `print` instruction of a `program:`).

#include "neuron/common/yaml_fields.h"
#include "neuron/model/program/compiled_model.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::control {

// Input quoted in a message.
std::string quoted(std::string_view text);

// A tensor shape: 1 to 8 dimensions, each 1 to 2^32 - 1.
std::vector<std::uint64_t> read_shape(const common::yaml_fields& fields, const YAML::Node& node);

// A fill's number, in the range of the tensor's element type.
double read_fill_value(const common::yaml_fields& fields, const YAML::Node& node, std::string_view what,
                       std::string_view dtype, std::size_t element_size);

// The keys of a device print, and one read from a map whose keys were checked.
inline constexpr std::string_view print_keys[] = {"prefix", "dtype", "shape", "pipe", "fill"};
model::device_print read_print(const common::yaml_fields& fields, const YAML::Node& node);

} // namespace neuron::control
