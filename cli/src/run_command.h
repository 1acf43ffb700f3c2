#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu run [OPTIONS] -- CMD [ARGS...]: runs CMD in a private mount
// namespace where the emulated tree sits at the driver's real paths, and
// exits with CMD's status.
int run_run(std::span<const std::string> args);

} // namespace neuron::cli
