#pragma once

#include "neuron/recording/tree_recording.h"

#include <span>
#include <string>

// The host tools' commands, for any executable to dispatch to (neuron-emu
// record, neuron-conformance diff). Each prints what it did or why not and
// returns the exit code: 0 done (diff: no difference), 1 (diff: some
// differences; else a failure), 2 bad usage or input.
namespace neuron::recording {

// record [--sysfs-root R] [--driver-version V] -o FILE|- [--samples N --interval T]
int run_record(std::span<const std::string> args, const std::string& program);

// diff A B [--values]: A and B each a recording or a tree (a directory).
int run_diff(std::span<const std::string> args, const std::string& program);

// A recording file (at most 256 MiB), or the tree at a directory recorded
// now. Throws recording_error or common::yaml_error saying what is wrong.
tree_recording load_recording(const std::string& what);

} // namespace neuron::recording
