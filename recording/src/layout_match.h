#pragma once

#include "neuron/model/instance_catalogue.h"
#include "neuron/recording/replay_plan.h"
#include "neuron/sysfs/layout.h"

namespace neuron::recording {

struct layout_choice {
    const model::instance_type* instance = nullptr;
    const sysfs::driver_release* release = nullptr;
};

entry_type entry_type_of(sysfs::node_type t);

// The catalogued instance and release whose tree is nearest the recording's
// (fewest recorded paths it lacks, then fewest paths only it has), among those the request and the
// recording allow: a named instance or release, the recorded release, then
// instances with the recorded device count and instance type. Ties go to
// the first instance in the catalogue and the latest release.
layout_choice nearest_layout(const tree_recording& r, const replay_request& request);

} // namespace neuron::recording
