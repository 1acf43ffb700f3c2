#pragma once

#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/sysfs_tree.h"

#include <string_view>

namespace neuron::sysfs {

// Where the two halves of the driver's tree sit below the tree's root, as
// below /sys.
inline constexpr std::string_view devices_path = "devices/virtual/neuron_device";
inline constexpr std::string_view class_path = "class/neuron_device";

// The driver's whole sysfs tree for one layout (driver-sysfs.md §1): the
// device directories under devices/virtual/neuron_device, the class
// directory with its links and attributes, and the kernel's generic device
// entries (dev, uevent, subsystem, power/).
sysfs_tree build_tree(const layout& layout);

} // namespace neuron::sysfs
