#pragma once

#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/recording/replay_plan.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/sysfs_tree.h"

#include <string>

namespace neuron::recording {

entry_type entry_type_of(sysfs::node_type t);

// Every node below `from`, parents first, with its path relative to `from`.
template <typename Visit>
void for_each_below(const sysfs::sysfs_tree& tree, sysfs::node_id from, Visit&& visit, const std::string& path = {}) {
    for (const auto child : tree.at(from).children) {
        const auto& n = tree.at(child);
        const auto child_path = path.empty() ? n.name : path + "/" + n.name;
        visit(child_path, child);
        if (n.type == sysfs::node_type::directory) for_each_below(tree, child, visit, child_path);
    }
}

struct layout_choice {
    const model::instance_type* instance = nullptr;
    const sysfs::driver_release* release = nullptr;
    sysfs::sysfs_tree tree; // the layout's, built with the request's char_major
};

// The catalogued instance and release whose tree is nearest the recording's
// (fewest recorded paths it lacks, then fewest paths only it has), among
// those the request and the recording allow: a named instance or release,
// the recorded release, then instances with the recorded device count and
// instance type. Ties go to the first instance in the catalogue and the
// latest release. Throws what find_instance_type, find_release and layout
// throw for a request that names what does not exist (or not together).
layout_choice nearest_layout(const tree_recording& r, const replay_request& request);

} // namespace neuron::recording
