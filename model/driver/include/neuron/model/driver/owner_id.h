#pragma once

#include <cstdint>

namespace neuron::model {

// A runtime session (one process using the devices). Owner 0 is the driver
// itself, which allocates for its own rings and notification queues.
using owner_id = std::uint64_t;
inline constexpr owner_id driver_owner = 0;

} // namespace neuron::model
