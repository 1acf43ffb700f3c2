#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu check-model FILE...: parses emulated model files and reports
// the first error of each as FILE:LINE:COLUMN, or a summary.
int run_check_model(std::span<const std::string> args);

} // namespace neuron::cli
