#include "monitor_command.h"

#include "usage_error.h"

namespace neuron::cli {

int run_monitor(std::span<const std::string>) { throw usage_error("monitor: not written yet"); }

} // namespace neuron::cli
