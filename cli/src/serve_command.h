#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu serve: models an instance and serves its sysfs tree at a mount
// point (or as plain files) until SIGINT/SIGTERM.
int run_serve(std::span<const std::string> args);

} // namespace neuron::cli
