#pragma once

// The implicit asynchronous mode (nrt-api-surface.md §5.2): with
// NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=N (N > 0, at most 63) nrt_execute
// returns once the execution is queued on its core's compute unit, the
// registered callback hears each final status, and reading or writing a
// tensor waits while a queued execution uses it.

#include "nrt/nrt_experimental.h"

#include <cstdint>
#include <optional>

namespace neuron::shim {

// N, when the mode is on.
std::optional<std::uint32_t> implicit_async_limit(const char* fn);

// Queues the execution: NRT_QUEUE_FULL when N are in flight on its core.
NRT_STATUS execute_in_background(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input,
                                 nrt_tensor_set_t* output, std::uint32_t limit);

} // namespace neuron::shim
