#pragma once

#include <string>

namespace neuron::test_support {

// The whole content of the file at `path`; empty when it cannot be read.
std::string slurp(const std::string& path);

} // namespace neuron::test_support
