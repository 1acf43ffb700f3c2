#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace neuron::model {

// What waits for a semaphore to reach a value: told once, from the add()
// that gets it there, and must not wait or forget from within.
class semaphore_waiter {
public:
    virtual void semaphore_reached(std::uint32_t index) = 0;

protected:
    ~semaphore_waiter() = default;
};

// Told of every change while it records (a profile).
class semaphore_recorder {
public:
    virtual void semaphore_changed(std::uint32_t index, std::uint32_t value) = 0;

protected:
    ~semaphore_recorder() = default;
};

// A core's hardware semaphores: counters its engines and DMA queues add to
// and wait on. The runtime clears them before each execution. A waiter is
// called by the add() that reaches its value, so an engine wakes once per
// wait, not at every change. Kernel thread only.
class semaphore_bank {
public:
    explicit semaphore_bank(std::uint32_t count);

    std::uint32_t size() const { return m_count; }
    std::uint32_t value(std::uint32_t index) const { return m_values[index]; }
    void add(std::uint32_t index, std::uint32_t amount);
    // When it last changed, in simulated picoseconds (0 after clear()).
    std::uint64_t changed_at(std::uint32_t index) const { return m_changed_at[index]; }
    // Calls `w` when semaphore `index` reaches `value` (which it has not yet).
    void wait(std::uint32_t index, std::uint32_t value, semaphore_waiter& w);
    // Drops the wait of `w`, if it has one.
    void forget(const semaphore_waiter& w);
    void clear();
    // `r` (or nobody, with nullptr) hears of every add().
    void record(semaphore_recorder* r) { m_recorder = r; }

private:
    struct pending_wait {
        std::uint32_t index;
        std::uint32_t value;
        semaphore_waiter* waiter;
    };

    std::uint32_t m_count;
    std::unique_ptr<std::uint32_t[]> m_values;
    std::unique_ptr<std::uint64_t[]> m_changed_at;
    std::vector<pending_wait> m_waits; // one per engine at most
    semaphore_recorder* m_recorder = nullptr;
};

} // namespace neuron::model
