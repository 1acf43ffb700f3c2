#pragma once

#include "neuron/conformance/scenario.h"
#include "neuron/conformance/target.h"
#include "neuron/protocol/simple_client.h"

#include <memory>
#include <optional>
#include <string>

namespace neuron::conformance {

// Where the programs the runner starts are: by default beside the runner
// (build/bin/neuron-emu, build/bin/nrt-session, build/lib/libnrt.so.1).
struct tool_paths {
    std::string emulator;
    std::string session;
    std::string library_dir;

    static tool_paths beside(const std::string& runner_executable);
};

// One scenario's target while it runs.
class target_session {
public:
    virtual ~target_session() = default;

    // The directory holding neuron0, neuron1, ...
    virtual const std::string& root() const = 0;
    // The emulator's control channel (nullptr on a sysfs target).
    virtual protocol::simple_client* control() { return nullptr; }
    virtual std::string control_path() const { return {}; }
    // Ends the session: stops the emulator, or puts back what the scenario's
    // setup changed. Returns a problem found meanwhile (the emulator did not
    // exit cleanly), if any.
    virtual std::optional<std::string> finish() = 0;
};

// A fresh emulator serving the scenario's instance under `directory`.
// Throws std::runtime_error saying why it did not come up.
std::unique_ptr<target_session> open_model_session(const target_description& target, const scenario& s,
                                                   const std::string& directory, const tool_paths& tools);

// For a scenario whose setup the driver refuses: nothing when `neuron-emu
// serve` refuses the target as a usage error naming its release, else what
// it did instead.
std::optional<std::string> serve_refusal(const target_description& target, const scenario& s,
                                         const std::string& directory, const tool_paths& tools);

// For a scenario that reads the driver's host paths on the model target:
// moves the calling process (single-threaded) into a private mount namespace
// where the emulator's whole tree under `directory` stands at
// /sys/devices/virtual/neuron_device and /sys/class/neuron_device, with
// /dev/neuronN and /proc/devices, as `neuron-emu run` places it. Keep the
// result for as long as the view is needed.
std::shared_ptr<void> enter_host_view(const target_description& target, const std::string& directory);

// The existing tree.
std::unique_ptr<target_session> open_sysfs_session(const target_description& target);

} // namespace neuron::conformance
