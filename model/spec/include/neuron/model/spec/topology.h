#pragma once

#include "neuron/model/spec/device_spec.h"

#include <cstdint>
#include <vector>

namespace neuron::model {

// The device ids the driver reports in neuronN/connected_devices, in the
// driver's order (driver-sysfs.md §7). Empty means the file reads "\n".
std::vector<std::uint32_t> connected_devices(device_kind kind, std::uint32_t device_count, std::uint32_t device_index);

} // namespace neuron::model
