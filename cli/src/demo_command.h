#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// `neuron-emu demo`: runs an instance model for a moment in stepped time and
// reports what it did (a runtime session, resets, ECC injection) and which
// driver counters changed.
int run_demo(std::span<const std::string> args);

} // namespace neuron::cli
