#pragma once

#include "neuron/tools/host_sample.h"
#include "neuron/tools/no_devices_error.h"

#include <string>
#include <vector>

namespace neuron::tools {

// The devices of the driver's tree at `sysfs_root` (its neuronN directories), in index order: what
// sysfs shows (core counts, links, names, memory use, ECC counts). The memory
// size comes from the device generation the tree names. Damaged or missing
// files are left out. Throws no_devices_error when there is no tree (no
// driver), no device in it, or when permissions keep the tree, a device's
// directory or a file saying what a device is from being read (any other
// failure to open the tree counts as unreadable too).
std::vector<device_sample> read_devices(const std::string& sysfs_root);

} // namespace neuron::tools
