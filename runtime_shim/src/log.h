#pragma once

#include <string_view>

namespace neuron::shim {

enum class log_level { error = 0, warning = 1, info = 2, debug = 3, trace = 4 };

// Writes one line to stderr in the runtime's format
// ("2024-Oct-21 20:15:03.169020  7340:7340  ERROR  NRT:nrt_init  message")
// when `level` is enabled by NEURON_RT_LOG_LEVEL (default ERROR; QUIET: none).
// `module` is the runtime's component that logs it (NRT, TDRV, NMGR, ENC).
void log(log_level level, std::string_view module, std::string_view function, std::string_view message);
inline void log(log_level level, std::string_view function, std::string_view message) {
    log(level, "NRT", function, message);
}

inline void log_error(std::string_view function, std::string_view message) { log(log_level::error, function, message); }
inline void log_info(std::string_view function, std::string_view message) { log(log_level::info, function, message); }

} // namespace neuron::shim
