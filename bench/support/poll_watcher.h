#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace neuron::bench {

// A thread that holds a file open, as the vendor's poll sample does, and
// notes when each POLLPRI|POLLERR wake comes (then seeks to 0 and reads,
// which re-arms it).
class poll_watcher {
public:
    explicit poll_watcher(const std::string& path);
    ~poll_watcher();
    poll_watcher(const poll_watcher&) = delete;
    poll_watcher& operator=(const poll_watcher&) = delete;

    // The time of the first wake at or after `since`, or nothing if none came
    // in `timeout` (a wake from before `since` belongs to an earlier change).
    std::optional<std::chrono::steady_clock::time_point> next_wake(std::chrono::steady_clock::time_point since,
                                                                   std::chrono::milliseconds timeout);

private:
    int m_fd = -1;
    int m_stop = -1;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::optional<std::chrono::steady_clock::time_point> m_wake;
};

} // namespace neuron::bench
