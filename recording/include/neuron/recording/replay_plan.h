#pragma once

#include "neuron/model/spec/counter.h"
#include "neuron/recording/tree_recording.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/served_tree.h"

#include <cstdint>
#include <string>
#include <vector>

// How a recorded host is served again (`serve --from`, `run --from`): the
// recorded tree as it was, with the model's semantics wherever the model
// has a file at the same place. No SystemC or FUSE: the plan is data.
namespace neuron::recording {

struct replay_request {
    std::string instance;       // empty: the catalogued instance whose tree is nearest the recording's
    std::string driver_version; // empty: the recording's release, else the nearest tree's
    std::uint32_t char_major = 0;
};

struct replay_counts {
    std::size_t modelled = 0;    // files the model serves (counters seeded with the recorded values)
    std::size_t as_recorded = 0; // files served with their recorded contents
    std::size_t host_only = 0;   // of those, paths the layout does not have
    std::size_t layout_only = 0; // the layout's files and links the host did not have: not served
};

struct replay_plan {
    std::string instance; // the model's instance
    const sysfs::driver_release* release = nullptr;
    sysfs::served_tree served;                                 // the whole tree, as below /sys
    std::vector<model::scripted_counter_value> counter_script; // in time order
    replay_counts counts;
};

// Recorded values stand at simulated time 0; the n-th sample's at
// interval_ns + its at_ns (a recording's first sample follows the walk).
// A sample moves a counter by the host's change (total by the difference,
// peak only up, present to the value), so the model's own counts stay.
std::uint64_t sample_time_ns(const tree_recording& r, std::size_t n);

// Throws recording_error when the recording cannot be served (an entry
// below a file or link, no release supporting the instance, samples past
// the model's clock or too many changes); unknown_instance_error,
// unknown_driver_version_error or unsupported_combination_error when the
// request names what does not exist, or not together.
replay_plan plan_replay(const tree_recording& r, const replay_request& request);

} // namespace neuron::recording
