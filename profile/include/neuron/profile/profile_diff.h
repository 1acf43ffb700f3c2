#pragma once

#include "neuron/profile/timeline.h"

#include <string>

// `neuron-emu profile diff A B`: how profile B differs from profile A (two
// models, two instance types, before and after a change): every summary
// field with both values and B - A, then time and count per opcode and per
// engine.
namespace neuron::profile {

std::string diff_text(const core_timeline& a, const core_timeline& b);
std::string diff_json(const core_timeline& a, const core_timeline& b);

} // namespace neuron::profile
