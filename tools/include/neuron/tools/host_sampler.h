#pragma once

#include "neuron/tools/host_sample.h"
#include "neuron/tools/no_devices_error.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace neuron::tools {

// Where a sample comes from.
struct sample_sources {
    std::string sysfs_root =
        "/sys/devices/virtual/neuron_device"; // the driver's neuronN directories (as record's --sysfs-root)
    std::string control_path;                 // the emulator's control socket; empty: no emulator
    std::string proc_root = "/proc";
    std::string dmi_root = "/sys/devices/virtual/dmi/id"; // EC2's instance type and id, without an emulator
};

// The sources a tool uses by default: the driver's tree, and the control socket named by
// NEURON_EMU_CONTROL (set by `neuron-emu run` for its command).
sample_sources default_sources();

// Reads the tree, asks the emulator (when `control_path` names one) and reads
// /proc. Throws no_devices_error when the tree shows no device or cannot be
// read (its `why` says which); a control socket that does not answer leaves
// `runtime_error` set, never throws.
host_sample sample_host(const sample_sources& sources);

// Blocks until the sample clock (host_sample::time_ns) reaches `target_ns`:
// the emulator's simulated time when `control_path` names one (stepped time
// moves only when a test or a scenario advances it), else the host's
// monotonic clock. False when the emulator stopped answering, or when
// `stop` (if given) became true meanwhile.
bool wait_for_time(const sample_sources& sources, std::uint64_t target_ns, const std::atomic<bool>* stop = nullptr);

} // namespace neuron::tools
