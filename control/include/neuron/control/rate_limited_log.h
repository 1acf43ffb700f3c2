#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace neuron::control {

// The control server's log: at most `per_second` lines a second reach the
// sink, so a flood of hostile clients cannot flood the log. Lines held back
// are counted and announced with the next line that passes. One thread.
class rate_limited_log {
public:
    using sink = std::function<void(std::string_view line)>;
    using clock = std::chrono::steady_clock;

    using time_source = std::function<clock::time_point()>;

    explicit rate_limited_log(sink out, std::size_t per_second = 20, time_source now = clock::now);
    void operator()(std::string_view line);
    std::uint64_t suppressed() const { return m_suppressed_total; }

private:
    sink m_out;
    std::size_t m_per_second;
    time_source m_now;
    clock::time_point m_window_start{};
    std::size_t m_in_window = 0;
    std::uint64_t m_held_back = 0;
    std::uint64_t m_suppressed_total = 0;
};

// Writes "neuron-emu: control: LINE" to stderr.
void log_to_stderr(std::string_view line);

} // namespace neuron::control
