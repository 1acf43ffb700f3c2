#pragma once

#include "neuron/profile/timeline.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

// A profile's summary: neuron-profile's keys (nrt-api.md §5.1) that the
// model knows, computed from the timeline alone. Times are seconds, as the
// vendor's; utilisation fields are fractions in [0, 1] despite their
// `_percent` names, as the vendor's summary-json has them (engines.md D.1).
// Keys the model cannot know (HLO, collectives, spills) are absent, never
// invented; the throttle's, only where the Tensor engine ran under its limit. docs/profile-views.md lists every key.
namespace neuron::profile {

using summary_value = std::variant<std::uint64_t, double, std::string>;

struct summary_field {
    std::string key;
    summary_value value;
};

std::vector<summary_field> summarize(const core_timeline& t);

// Picoseconds to the nanoseconds every view shows: every view rounds the
// same way, so sums of rows equal the summary's totals.
constexpr std::uint64_t to_ns(std::uint64_t ps) { return ps / 1000; }

// The worker key of summary-json: the global NeuronCore id.
std::string worker_key(const core_timeline& t);

} // namespace neuron::profile
