#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu inspect-neff [--json] FILE...
int run_inspect_neff(std::span<const std::string> args);

} // namespace neuron::cli
