#pragma once

#include "neuron/conformance/scenario.h"
#include "neuron/conformance/scenario_outcome.h"
#include "neuron/conformance/target.h"
#include "neuron/conformance/target_session.h"

#include <functional>
#include <optional>
#include <span>

namespace neuron::conformance {

// One scenario against one target. A run whose verdict is already known
// (skipped before any emulator starts, or a setup that cannot be met)
// carries it in `decided` and is reported without running.
struct scenario_run {
    const scenario* what = nullptr;
    target_description target;
    nanoseconds timeout{0};
    std::optional<scenario_outcome> decided;
};

struct run_limits {
    unsigned workers = 1;         // runs at once, each in a worker process of its own (1: here)
    bool stop_on_failure = false; // after a failure, start no further run
};

// Runs each run isolated (run_isolated), `limits.workers` at a time, and
// calls `done(index, outcome)` in the order of `runs`, each as soon as it and
// every run before it have ended. Runs are started in order, so the runs
// reported are always a prefix of `runs`: all of them unless a failure (with
// stop_on_failure) or request_stop() ended the run early. Returns how many
// were reported.
//
// The caller must be a child subreaper; each worker is one too, so what a
// scenario leaves behind comes back to the worker that ran it.
std::size_t run_scenarios(std::span<const scenario_run> runs, const tool_paths& tools, const run_limits& limits,
                          const std::function<void(std::size_t, const scenario_outcome&)>& done);

} // namespace neuron::conformance
