#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu ls (and neuron-ls on PATH under run).
int run_ls(std::span<const std::string> args);

} // namespace neuron::cli
