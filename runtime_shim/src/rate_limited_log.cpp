#include "rate_limited_log.h"

#include "log.h"

namespace neuron::shim {

rate_limited_line::rate_limited_line(clock::duration interval, time_source now)
        : m_interval(interval), m_now(std::move(now)) {}

std::optional<std::string> rate_limited_line::pass(std::string_view message) {
    const auto now = m_now();
    std::lock_guard lock(m_mutex);
    if (m_last && now - *m_last < m_interval) {
        ++m_held_back;
        return std::nullopt;
    }
    m_last = now;
    std::string line(message);
    if (m_held_back > 0) {
        line += " (" + std::to_string(m_held_back) + " more like it not logged)";
        m_held_back = 0;
    }
    return line;
}

void rate_limited_line::log_error(std::string_view function, std::string_view message) {
    if (const auto line = pass(message)) neuron::shim::log_error(function, *line);
}

} // namespace neuron::shim
