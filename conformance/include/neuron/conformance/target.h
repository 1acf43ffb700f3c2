#pragma once

#include "neuron/conformance/capability.h"
#include "neuron/conformance/scenario.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/sysfs/driver_release.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron::conformance {

// What scenarios run against: the emulator (a fresh one per scenario) or an
// existing tree (real hardware, a served mount, a materialized tree).
struct target_description {
    enum class kind { model, sysfs };
    kind what = kind::model;
    std::string root; // the tree (sysfs targets; a model target's comes with each emulator)

    const model::instance_type* instance = nullptr;      // what it is, when known
    std::vector<const model::instance_type*> candidates; // sysfs: every type the tree could be
    const sysfs::driver_release* release = nullptr;      // its release, or (not exact) the oldest it can be
    bool release_exact = true;
    std::uint32_t devices = 0;
    std::uint32_t cores_per_device = 0;
    capability_set capabilities;
    std::string unavailable; // why this target cannot run anything here (empty: it can)
    // sysfs: the control socket of the neuron-emu serving the tree (empty: none)
    // and the time that emulator keeps.
    std::string control;
    std::optional<time_mode> served_time;

    std::string name() const; // "model trn1.32xlarge driver 2.24.7.0", "sysfs /sys/... (trn1.32xlarge?)"
};

// The emulator as a target: instance and release as the runner was told.
// Throws model::invalid_argument_error for an unknown instance or release.
target_description describe_model_target(const std::string& instance, const std::string& driver_version);

// The same target as one scenario's setup turns it (its own instance or release).
target_description model_target_for(const target_description& base, const scenario& s);

// An existing tree: its devices, cores and identity strings read from it, the
// instance types it could be, its release (`driver_version`, else
// /sys/module/neuron/version, else the oldest release whose layout it shows).
target_description detect_sysfs_target(const std::string& root, const std::optional<std::string>& instance,
                                       const std::optional<std::string>& driver_version);

// A sysfs tree served by neuron-emu, with its control socket at `path`: the
// scenarios that inject, move stepped time or run libnrt run on it too. The
// instance, release and time mode come from the emulator's status where the
// command line gave none. Throws model::invalid_argument_error when the
// socket does not answer as an emulator's.
void attach_control(target_description& t, const std::string& path, bool instance_given, bool release_given);

// Why the scenario does not run on this target (not applicable, or it needs
// what the target cannot do), or nothing when it runs.
std::optional<std::string> skip_reason(const scenario& s, const target_description& t);

} // namespace neuron::conformance
