#pragma once

#include <string>
#include <vector>

namespace neuron::tools {

// The names in `dir`, without "." and "..", in the order the file system
// gives them; none when it cannot be listed.
std::vector<std::string> directory_entries(const std::string& dir);

} // namespace neuron::tools
