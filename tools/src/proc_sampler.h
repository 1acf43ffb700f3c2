#pragma once

#include "neuron/tools/host_sample.h"

#include <optional>
#include <string>
#include <vector>

namespace neuron::tools {

// The host's CPUs and memory (/proc/stat, /proc/meminfo).
system_sample read_system(const std::string& proc_root);

// A process's command line, its words joined by spaces; empty when gone.
std::string command_of(const std::string& proc_root, std::uint32_t pid);

// utime and stime of /proc/PID/stat, as user and system.
std::optional<cpu_times> cpu_of(const std::string& proc_root, std::uint32_t pid);

// Processes with a /dev/neuronN open, and which devices.
std::vector<device_user> device_users(const std::string& proc_root);

} // namespace neuron::tools
