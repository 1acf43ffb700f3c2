#pragma once

#include "neuron/conformance/scenario.h"
#include "neuron/conformance/scenario_outcome.h"
#include "neuron/conformance/target.h"
#include "neuron/conformance/target_session.h"

namespace neuron::conformance {

// Runs one scenario in a child process of its own (its own process group,
// temporary directory and, on the model target, emulator and mount). Steps
// that hang are cut off at `timeout`; whatever happens, every process the
// scenario started is killed, every mount under its directory detached and
// the directory removed.
//
// The caller must be the only one reaping children of this process (the
// runner makes itself a child subreaper so that leftovers come back to it).
//
// A signal handler may call request_stop(): the running scenario is then
// cut off (and cleaned up) as if it had timed out.
scenario_outcome run_isolated(const scenario& s, const target_description& target, const tool_paths& tools,
                              nanoseconds timeout);

void request_stop(); // async-signal-safe
bool stop_requested();

} // namespace neuron::conformance
