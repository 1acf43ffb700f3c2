#pragma once

#include "neuron/protocol/messages.h"

#include <cstddef>
#include <cstdint>

namespace neuron::shim {

// Sends what nrt_load was given to the emulator and returns what it loaded:
// a NEFF larger than one message goes first in model_pieces. The process's
// scratchpad settings travel with it (NEURON_SCRATCHPAD_PAGE_SIZE,
// NEURON_RT_CONTIGUOUS_SCRATCHPAD). Throws request_failed as the client does.
protocol::model_loaded upload_model(const void* bytes, std::size_t size, std::int32_t global_core);

} // namespace neuron::shim
