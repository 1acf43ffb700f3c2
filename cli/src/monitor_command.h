#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu monitor (and neuron-monitor on PATH under run).
int run_monitor(std::span<const std::string> args);

} // namespace neuron::cli
