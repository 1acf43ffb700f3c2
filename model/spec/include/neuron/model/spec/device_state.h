#pragma once

#include <cstdint>

namespace neuron::model {

// The value the driver's `reset` attribute shows (driver-sysfs.md §2, §5).
enum class device_state : std::uint8_t { resetting = 0, ready = 1, invalid = 2 };

} // namespace neuron::model
