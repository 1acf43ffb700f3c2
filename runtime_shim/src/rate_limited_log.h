#pragma once

// A log line a caller can make repeat at its own pace (a refusal it retries
// in a loop): at most one such line an interval reaches the log, and the next
// one that does says how many were held back. Ours: the reference does not
// say how the runtime bounds these lines. Thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace neuron::shim {

class rate_limited_line {
public:
    using clock = std::chrono::steady_clock;
    using time_source = std::function<clock::time_point()>;

    explicit rate_limited_line(clock::duration interval = std::chrono::seconds(1), time_source now = clock::now);

    // The line to log for `message` now, or nothing when one went out less
    // than an interval ago (then it is counted).
    std::optional<std::string> pass(std::string_view message);
    // Logs pass(message), if anything, as `function`'s error.
    void log_error(std::string_view function, std::string_view message);

private:
    clock::duration m_interval;
    time_source m_now;
    std::mutex m_mutex;
    std::optional<clock::time_point> m_last; // when the last line went out
    std::uint64_t m_held_back = 0;
};

} // namespace neuron::shim
