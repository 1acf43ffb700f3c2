#pragma once

#include "neuron/tools/host_sample.h"

#include <string>
#include <vector>

namespace neuron::tools {

// The devices of the driver's tree at `sysfs_root` (its neuronN directories), in index order: what
// sysfs shows (core counts, links, names, memory use, ECC counts). The memory
// size comes from the device generation the tree names. No device, or no
// tree: empty.
std::vector<device_sample> read_devices(const std::string& sysfs_root);

} // namespace neuron::tools
