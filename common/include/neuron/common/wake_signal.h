#pragma once

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <linux/futex.h>
#include <optional>
#include <sys/syscall.h>
#include <unistd.h>

namespace neuron::common {

// One thread sleeps on it, any thread wakes it; a wake-up given while the
// sleeper is awake is kept for its next sleep. A futex word, because glibc's
// condition variable returns with its mutex marked contended (a futex call
// on the next unlock, on the path of every command) and libstdc++'s
// semaphore spins with sched_yield before it sleeps (on a busy single CPU it
// hands the CPU around and delays the very threads it waits for).
class wake_signal {
public:
    // Returns true when woken, false once `until` (steady_clock) passed.
    bool sleep(std::optional<std::chrono::steady_clock::time_point> until = std::nullopt) {
        for (;;) {
            std::uint32_t state = m_state.load(std::memory_order_acquire);
            if (state == posted) {
                if (m_state.compare_exchange_weak(state, idle, std::memory_order_acquire)) return true;
                continue;
            }
            if (state == idle && !m_state.compare_exchange_weak(state, sleeping, std::memory_order_acquire)) continue;
            if (!wait_while_sleeping(until)) {
                state = sleeping;
                if (m_state.compare_exchange_strong(state, idle, std::memory_order_acquire)) return false;
            }
        }
    }

    void wake() {
        if (m_state.exchange(posted, std::memory_order_release) == sleeping) {
            ::syscall(SYS_futex, &m_state, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
        }
    }

private:
    static constexpr std::uint32_t idle = 0, posted = 1, sleeping = 2;

    // False when `until` passed first.
    bool wait_while_sleeping(std::optional<std::chrono::steady_clock::time_point> until) {
        timespec deadline{};
        if (until) {
            const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(until->time_since_epoch()).count();
            deadline.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
            deadline.tv_nsec = static_cast<long>(ns % 1'000'000'000);
        }
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time (steady_clock's).
        const long r = ::syscall(SYS_futex, &m_state, FUTEX_WAIT_BITSET_PRIVATE, sleeping, until ? &deadline : nullptr,
                                 nullptr, FUTEX_BITSET_MATCH_ANY);
        return !(r < 0 && errno == ETIMEDOUT);
    }

    std::atomic<std::uint32_t> m_state{idle};
};

} // namespace neuron::common
