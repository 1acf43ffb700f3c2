#pragma once

#include "neuron/model/runtime/api.h"

namespace neuron::model {

class platform;

// Emits a debug_emission's events, in order. Kernel thread only. Throws
// invalid_argument_error, before emitting any, for a request out of bounds.
debug_emission_result emit_debug_events(platform& p, const debug_emission& request);

} // namespace neuron::model
