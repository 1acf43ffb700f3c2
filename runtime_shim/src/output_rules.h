#pragma once

#include "neuron/protocol/messages.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace neuron::shim {

// Fills an output tensor's bytes from its model's rule: a copy of an input,
// the element-wise sum of inputs (integers wrap like the hardware's), or a
// constant. `sources` are the inputs the rule names, in order.
void apply_output_rule(const protocol::model_tensor& output, std::uint8_t* out,
                       const std::vector<const std::uint8_t*>& sources);

} // namespace neuron::shim
