#pragma once

#include <string>

namespace neuron::common {

// An argument as a shell command line shows it: as it stands when it is one
// word to a shell, else in single quotes (for repro commands and logs).
std::string shell_word(const std::string& arg);

} // namespace neuron::common
