#pragma once

#include <span>
#include <string>

namespace neuron::cli {

// neuron-emu check-model [--instance TYPE] FILE...: parses emulated model
// files, binds each program to the instance's device generation, and reports
// the first error of each as FILE:LINE:COLUMN, or a summary. Returns 2 when a
// file is not a valid model or is not a readable regular file of at most
// control::max_model_file_bytes bytes.
int run_check_model(std::span<const std::string> args);

} // namespace neuron::cli
