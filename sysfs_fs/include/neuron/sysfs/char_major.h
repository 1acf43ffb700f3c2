#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace neuron::sysfs {

// The driver asks for a dynamic character major (alloc_chrdev_region), so a
// real host shows whatever the kernel handed out, e.g. 239. The emulator
// picks what the kernel would pick here: the highest free major from 254 down
// to 234, then from 511 down to 384 (fs/char_dev.c find_dynamic_major),
// judged from the "Character devices:" section of /proc/devices.
std::uint32_t dynamic_char_major(std::string_view proc_devices);

std::string read_proc_devices(); // empty when /proc/devices cannot be read

// /proc/devices with a "NNN neuron" line added to its character devices,
// in major order, as the loaded driver would show it.
std::string proc_devices_with_neuron(std::string_view proc_devices, std::uint32_t major);

} // namespace neuron::sysfs
