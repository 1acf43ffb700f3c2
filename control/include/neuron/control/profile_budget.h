#pragma once

#include <cstdint>
#include <memory>
#include <mutex>

namespace neuron::control {

// The memory the emulator gives to recorded profiles (and the session files
// built from them) over all its runtime sessions together: each process's
// profile_store takes what it keeps from one budget and gives it back when
// a profile is dropped or pushed out and when its session ends. Any thread.
class profile_budget {
public:
    // Ours: the runtime keeps profile buffers in the host's memory; the
    // emulator holds at most 4 GiB of them, or a quarter of the host's
    // memory when that is less.
    static std::uint64_t default_limit();

    explicit profile_budget(std::uint64_t limit = default_limit()) : m_limit(limit) {}

    // The budget every runtime session's profiles share.
    static const std::shared_ptr<profile_budget>& shared();

    // Takes `bytes`, or nothing and false when they would pass the limit.
    bool take(std::uint64_t bytes);
    void give(std::uint64_t bytes);

    std::uint64_t held() const;
    std::uint64_t limit() const;
    // Settable so that tests can lower it: a limit below what is held
    // refuses every take until enough is given back.
    void set_limit(std::uint64_t bytes);

private:
    mutable std::mutex m_mutex;
    std::uint64_t m_limit;
    std::uint64_t m_held = 0;
};

} // namespace neuron::control
