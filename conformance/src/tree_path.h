#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace neuron::conformance {

// Why a step's path is not a path inside the tree (it is absolute, or a
// '..' in it climbs out; the steps may run as root), or nothing when it is.
std::optional<std::string> tree_path_refusal(std::string_view path);

} // namespace neuron::conformance
