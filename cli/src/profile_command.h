#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu profile capture | view | diff
int run_profile(std::span<const std::string> args);

} // namespace neuron::cli
