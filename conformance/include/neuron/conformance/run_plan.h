#pragma once

#include "neuron/conformance/scenario.h"
#include "neuron/conformance/scenario_runs.h"
#include "neuron/conformance/target.h"

#include <optional>
#include <span>
#include <vector>

namespace neuron::conformance {

inline constexpr nanoseconds default_scenario_timeout = std::chrono::seconds(60);

// Which runs a command line asks for and how each is cut up.
struct plan_options {
    std::optional<nanoseconds> timeout; // overrides every scenario's own
    unsigned shard = 0, shards = 1;     // keep the runs whose index % shards == shard
};

// Each selected scenario against each target, in that order (targets outer).
// On the model target a scenario's setup may name its own instance or
// release, so runs that come to the same scenario on the same target are
// kept once. A run that needs no emulator to judge is decided here: skipped
// with the reason (skip_reason), or failed when its setup names a release
// that does not exist.
std::vector<scenario_run> plan_runs(std::span<const scenario* const> selected,
                                    std::span<const target_description> targets, const plan_options& options);

// Every instance type of the catalogue on every known release, as model targets.
std::vector<target_description> every_model_target();

} // namespace neuron::conformance
