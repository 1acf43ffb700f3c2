#include "neuron/control/rate_limited_log.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

namespace neuron::control {

rate_limited_log::rate_limited_log(sink out, std::size_t per_second, time_source now)
        : m_out(out ? std::move(out) : sink(log_to_stderr)), m_per_second(per_second), m_now(std::move(now)) {}

void rate_limited_log::operator()(std::string_view line) {
    const auto now = m_now();
    if (now - m_window_start >= std::chrono::seconds(1)) {
        m_window_start = now;
        m_in_window = 0;
    }
    if (m_in_window >= m_per_second) {
        ++m_held_back;
        ++m_suppressed_total;
        return;
    }
    ++m_in_window;
    // Lines quote what clients sent: kept to one line, and unable to drive a terminal.
    const auto safe = common::printable_message(line);
    if (m_held_back == 0) {
        m_out(safe);
        return;
    }
    m_out(fmt::format("{} ({} earlier lines not logged: more than {} a second)", safe, m_held_back, m_per_second));
    m_held_back = 0;
}

void log_to_stderr(std::string_view line) { fmt::print(stderr, "neuron-emu: control: {}\n", line); }

} // namespace neuron::control
