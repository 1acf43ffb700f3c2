#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace neuron::model {

enum class time_mode : std::uint8_t {
    stepped,  // time moves only when asked: deterministic, for tests
    realtime, // paced to the wall clock with a real-time factor
};

// The whole nanoseconds that reach an instant `ps` picoseconds away (rounded
// up). The kernel rests on whole nanoseconds while its events may fall
// between them (a 2.4 GHz cycle count): rounded down, an event under 1 ns
// away would read as none, and a realtime kernel would sleep past it.
constexpr std::uint64_t ns_reaching(std::uint64_t ps) { return ps / 1000 + (ps % 1000 != 0 ? 1 : 0); }

// Simulated time as seen from any thread. The kernel thread publishes the time
// it has reached; in realtime mode readers extrapolate from the wall clock, so
// a reader never has to enter the kernel to learn the time.
class sim_clock {
public:
    using wall_clock = std::chrono::steady_clock;

    sim_clock(time_mode mode, double real_time_factor, std::int64_t start_epoch_ns);

    time_mode mode() const { return m_mode; }
    double real_time_factor() const { return m_rtf; }

    // Any thread.
    std::uint64_t now_ns() const;
    // Unix time at a simulated instant: the instance started at start_epoch.
    std::int64_t epoch_ns(std::uint64_t sim_ns) const { return m_start_epoch_ns + static_cast<std::int64_t>(sim_ns); }

    // Kernel thread only.
    void publish(std::uint64_t kernel_ns) { m_kernel_ns.store(kernel_ns, std::memory_order_release); }
    // Realtime mode: simulated time sim_ns corresponds to wall instant `wall`;
    // simulated time never passes limit_ns (the kernel's maximum time).
    void anchor(std::uint64_t sim_ns, wall_clock::time_point wall, std::uint64_t limit_ns);
    // The simulated time the kernel can never pass (SystemC's maximum time).
    std::uint64_t limit_ns() const { return m_limit_ns.load(std::memory_order_relaxed); }
    // Realtime mode: where simulated time should be at a wall instant, and back.
    std::uint64_t sim_at(wall_clock::time_point wall) const;
    wall_clock::time_point wall_at(std::uint64_t sim_ns) const;

private:
    time_mode m_mode;
    double m_rtf;
    std::int64_t m_start_epoch_ns;
    std::atomic<std::uint64_t> m_kernel_ns{0};
    std::atomic<std::uint64_t> m_anchor_sim_ns{0};
    std::atomic<wall_clock::rep> m_anchor_wall{0};
    std::atomic<std::uint64_t> m_limit_ns{UINT64_MAX};
};

} // namespace neuron::model
