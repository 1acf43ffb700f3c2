#pragma once

#include "neuron/model/state/platform_config.h"
#include "neuron/model/state/published_state.h"

#include <memory>

namespace neuron::model {

// Builds the empty store for a validated config: serial numbers, clock, and
// every counter at zero.
std::unique_ptr<published_state> make_published_state(const platform_config& config);

} // namespace neuron::model
