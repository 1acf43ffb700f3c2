#pragma once

#include "neuron/model/program/compiled_model.h"
#include "neuron/model/state/debug_event.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace neuron::model {

// Tensor bytes of `count` elements of a debug dtype, each holding `value`
// (or its index, for iota). Integer and float32/float16/bfloat16 dtypes
// hold the value itself; the 8-bit float and packed types hold its low byte.
std::vector<std::uint8_t> print_data(std::string_view dtype, std::uint64_t count, print_fill fill, double value);

// The debug event of `print` from a core, its elements filled as its fill
// says; `value` is what a value or execution fill holds.
debug_event print_event(const device_print& print, std::uint32_t device, std::uint32_t core, double value);

} // namespace neuron::model
