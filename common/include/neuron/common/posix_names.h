#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace neuron::common {

// errno values by their names ("ENOENT"), for scenarios and reports.
std::optional<int> errno_from_name(std::string_view name);
std::string errno_name(int error); // "ENOENT", or "errno 123"
std::string errno_names();         // the names scenarios may use

// Signals by name ("SIGKILL" or "KILL") or number.
std::optional<int> signal_from_name(std::string_view name);
std::string signal_name(int signal); // "SIGKILL", or "signal 40"

// "exit 0", "signal SIGKILL": a wait status for messages.
std::string describe_wait_status(int status);

} // namespace neuron::common
