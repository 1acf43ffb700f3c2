#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// `neuron-emu instances [--json]`: the instance catalogue.
int run_instances(std::span<const std::string> args);

} // namespace neuron::cli
