#include "top_command.h"

#include "usage_error.h"

namespace neuron::cli {

int run_top(std::span<const std::string>) { throw usage_error("top: not written yet"); }

} // namespace neuron::cli
