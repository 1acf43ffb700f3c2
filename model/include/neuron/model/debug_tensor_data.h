#pragma once

#include "neuron/model/compiled_model.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace neuron::model {

// Tensor bytes of `count` elements of a debug dtype, each holding `value`
// (or its index, for iota). Integer and float32/float16/bfloat16 dtypes
// hold the value itself; the 8-bit float and packed types hold its low byte.
std::vector<std::uint8_t> print_data(std::string_view dtype, std::uint64_t count, print_fill fill, double value);

} // namespace neuron::model
