#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace neuron::conformance {

// Why a step's path is not a path inside the tree (it is absolute, or a
// '..' in it climbs out; the steps may run as root), or nothing when it is.
// Absolute paths below the driver's host paths are allowed (host_paths).
std::optional<std::string> tree_path_refusal(std::string_view path);

// /sys/class/neuron_device..., /dev/neuron..., /proc/devices: a file the
// driver shows outside the device directory, at its host path.
bool is_host_path(std::string_view path);

} // namespace neuron::conformance
