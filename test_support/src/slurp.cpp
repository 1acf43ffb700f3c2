#include "neuron/test_support/slurp.h"

#include <fstream>
#include <sstream>

namespace neuron::test_support {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace neuron::test_support
