#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu ctl [--control PATH] VERB [OPTIONS]: one request to a running
// emulator's control socket; one line (or JSON) on stdout.
int run_ctl(std::span<const std::string> args);

} // namespace neuron::cli
