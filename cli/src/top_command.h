#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu top (and neuron-top on PATH under run).
int run_top(std::span<const std::string> args);

} // namespace neuron::cli
