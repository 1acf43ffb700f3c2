#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace neuron::conformance {

// What a target can do beyond reading its tree. A scenario lists what it
// needs in `requires:`; a target without one of them skips it with the reason.
enum class capability {
    root,           // act as root: write files, switch users, set notify_delay
    fresh_instance, // the devices as the driver left them at load: counters at 0, probe resets done
    model_control,  // start device resets through the emulator
    inject_ecc,     // add ECC errors to the device registers
    inject_fault,   // arm hardware faults that strike where an execution meets them
    fail_resets,    // make the next resets of a device fail
    time_control,   // move simulated time (stepped time)
    runtime,        // run libnrt programs (the emulator's shim and emulated models)
    debug_stream,   // emit device prints and read the runtime's debug-stream state
    host_paths,     // the driver's files at their host paths: /sys/class/neuron_device, /dev/neuronN, /proc/devices
};

using capability_set = std::set<capability>;

std::span<const capability> all_capabilities();
std::string_view capability_name(capability c);
// What a target lacking it cannot do, for skip reasons: "inject ECC errors".
std::string_view capability_meaning(capability c);
std::optional<capability> find_capability(std::string_view name);
std::string capability_names(); // "root, fresh_instance, ..."

} // namespace neuron::conformance
