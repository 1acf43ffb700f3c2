#pragma once

#include <systemc>

#include <cstdint>
#include <memory>

namespace neuron::model {

// A core's hardware semaphores: counters its engines and DMA queues add to
// and wait on, each with an event notified when it changes. The runtime
// clears them before each execution. Kernel thread only.
class semaphore_bank {
public:
    explicit semaphore_bank(std::uint32_t count);

    std::uint32_t size() const { return m_count; }
    std::uint32_t value(std::uint32_t index) const { return m_values[index]; }
    void add(std::uint32_t index, std::uint32_t amount);
    const sc_core::sc_event& changed(std::uint32_t index) const { return m_changed[index]; }
    // When it last changed, in simulated picoseconds (0 after clear()).
    std::uint64_t changed_at(std::uint32_t index) const { return m_changed_at[index]; }
    void clear();

private:
    std::uint32_t m_count;
    std::unique_ptr<std::uint32_t[]> m_values;
    std::unique_ptr<sc_core::sc_event[]> m_changed;
    std::unique_ptr<std::uint64_t[]> m_changed_at;
};

} // namespace neuron::model
