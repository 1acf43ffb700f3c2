#pragma once

#include "neuron/sysfs/recorded_files.h"
#include "neuron/sysfs/sysfs_tree.h"

namespace neuron::sysfs {

// What a mount or a materialized directory shows: the tree, and the recorded
// contents its attribute_kind::recorded files name (none for a layout's own
// tree; a recorded host's for a replay).
struct served_tree {
    sysfs_tree tree;
    recorded_files recorded;
};

} // namespace neuron::sysfs
