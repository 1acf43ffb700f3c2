#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace neuron::control {

// A session's latest execution latencies, for the tools that report them
// (neuron-monitor's latency_stats, neuron-top). Written from the kernel
// thread as executions end, read from the I/O thread.
class latency_log {
public:
    struct entry {
        std::uint64_t ended_ns = 0;  // simulated time
        std::uint64_t total_ns = 0;  // from the request to the end
        std::uint64_t device_ns = 0; // on the core
    };
    // Enough for a monitor period of executions at any sane polling rate.
    static constexpr std::size_t capacity = 1024;

    void add(const entry& e) {
        std::lock_guard lock(m_mutex);
        if (m_entries.size() == capacity) m_entries.pop_front();
        m_entries.push_back(e);
    }
    std::vector<entry> entries() const {
        std::lock_guard lock(m_mutex);
        return {m_entries.begin(), m_entries.end()};
    }

private:
    mutable std::mutex m_mutex;
    std::deque<entry> m_entries;
};

} // namespace neuron::control
