#pragma once

// The debug stream's sizes (nrt-api.md §2), which the model's device prints,
// the control protocol and the shim's stream reader all hold to.

#include <cstddef>

namespace neuron::runtime_api {

// The largest tensor a device print carries (model files and emit_debug);
// a debug-stream datagram is at most the 64-byte event header, the 1024-byte
// tensor-read struct and this.
inline constexpr std::size_t max_debug_tensor_bytes = std::size_t{1} << 20;
inline constexpr std::size_t max_debug_event_bytes = 64 + 1024 + max_debug_tensor_bytes;

} // namespace neuron::runtime_api
