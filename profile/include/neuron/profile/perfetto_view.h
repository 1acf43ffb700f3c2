#pragma once

#include "neuron/profile/timeline.h"
#include "neuron/profile/view_output.h"

#include <span>
#include <string>

// `--output-format perfetto`: the timelines as a Perfetto protobuf trace
// (.pftrace), tracks named as neuron-profile names them
// (docs/profile-views.md has the full list): one process per core; a track
// per engine ("Tensor Engine - Row 0", "TensorMatrix Engine - Row 0", ...),
// per DMA queue ("qSyncIO0 - Row 0") with a sibling row wherever slices
// overlap; a counter track per semaphore ("S[3] (Tensor)"), "DMA Throughput"
// (GB/s) and "Pending DMA Count"; the hardware errors that struck as
// instants on "Notifications". With `flows`, each wait that a semaphore
// satisfied is linked to the instruction or DMA run whose add satisfied it.
namespace neuron::profile {

// The trace is one sequence in time order across every profile: it keeps
// what it writes of each profile (its slices' times and names, compact, a
// few bytes per counter value) until the last is read.
void perfetto_trace(const timeline_source& profiles, bool flows, const output& out);
std::string perfetto_trace(std::span<const core_timeline> profiles, bool flows);

} // namespace neuron::profile
