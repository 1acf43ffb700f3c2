#pragma once

#include "neuron/common/json_writer.h"
#include "neuron/control/runtime_service.h"
#include "neuron/model/runtime/api.h"

#include <vector>

namespace neuron::control {

// The status document's "sessions": each runtime session with what only the
// runtime knows (protocol/README.md): its process, cores, loaded models with
// their memory, what it accumulated on each core before release, and its
// latest latencies. neuron-emu's ls, monitor and top read it.
void write_sessions(common::json_writer& json, const model::ownership& held,
                    const std::vector<session_process>& processes);

} // namespace neuron::control
