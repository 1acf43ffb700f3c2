#pragma once

#include "nrt/nrt.h"

#include <cstdint>

namespace neuron::shim {

// An execution completed `output` (nrt_tensor_check_output_completion counts these).
void count_completion(nrt_tensor& output);
// Waits until `output` was completed `expected` times: NRT_TIMEOUT once
// timeout_us passed first (< 0: no bound).
NRT_STATUS wait_for_completions(const nrt_tensor& output, std::int64_t timeout_us, std::uint64_t expected);

} // namespace neuron::shim
