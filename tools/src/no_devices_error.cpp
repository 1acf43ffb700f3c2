#include "neuron/tools/no_devices_error.h"

#include <fmt/format.h>

#include <cstring>

namespace neuron::tools {

no_devices_error::no_devices_error(discovery_failure why, std::string path)
        : std::runtime_error(why == discovery_failure::no_driver
                                 ? fmt::format("no neuron device: {} does not exist", path)
                                 : fmt::format("no neuron device in {}", path)),
          m_why(why), m_path(std::move(path)) {}

no_devices_error::no_devices_error(std::string path, std::string operation, int error_number)
        : std::runtime_error(fmt::format("cannot {} {}: {}", operation, path, std::strerror(error_number))),
          m_why(discovery_failure::unreadable), m_path(std::move(path)), m_operation(std::move(operation)),
          m_error_number(error_number) {}

} // namespace neuron::tools
