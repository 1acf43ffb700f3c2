#pragma once

#include "neuron/model/semaphore_bank.h"

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace neuron::model {

class memory_bandwidth;

// A DMA engine's part of one transfer: `descriptors` contiguous buffers of
// `bytes_per_descriptor` each (one per SBUF partition).
struct dma_slice {
    std::uint32_t descriptors = 0;
    std::uint64_t bytes_per_descriptor = 0;
    bool touches_hbm = false;
    std::uint32_t semaphore = UINT32_MAX; // gets 1 when the slice ends (UINT32_MAX: none)
    std::uint64_t ready_ps = 0;           // it may start moving data from this time
};

// One DMA engine of a NeuronCore with its queues (rings): one process that
// runs one slice at a time, taking the queues' ready heads in turn. A slice
// moves its bytes plus a per-descriptor overhead at the engine's rate, or
// at its share of device memory when that is smaller (memory_bandwidth),
// then adds 1 to its semaphore. A slice that touches device memory is timed
// by memory_bandwidth, the others by the engine. Bytes moved and busy time
// are computed from timestamps when read. Kernel thread only.
class dma_engine : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(dma_engine);
    dma_engine(sc_core::sc_module_name name, std::uint32_t index, std::uint32_t queue_count,
               std::uint64_t bytes_per_ns, memory_bandwidth& memory, semaphore_bank& semaphores);

    std::uint32_t index() const { return m_index; }
    std::uint32_t queue_count() const { return static_cast<std::uint32_t>(m_queues.size()); }
    double peak_bytes_per_ps() const { return m_peak; }

    // `ended` runs after each slice ends (and its semaphore is written).
    void on_slice_end(std::function<void()> ended) { m_ended = std::move(ended); }
    void enqueue(std::uint32_t queue, const dma_slice& slice);
    // Drops the slice in progress and every queued one, as an abort does.
    void stop();
    std::size_t queued() const { return m_queued; }

    std::uint64_t busy_ps() const;
    std::uint64_t bytes_moved() const;     // data bytes, up to now
    std::uint64_t hbm_bytes_moved() const; // of which to or from device memory

    // memory_bandwidth: the slice in progress, which moves device memory,
    // has ended.
    void memory_done();

private:
    void step();
    bool start_next(std::uint64_t now);
    double moved_work() const; // of the slice in progress, up to now
    void end_slice(std::uint64_t now);

    std::uint32_t m_index;
    double m_peak; // bytes per ps
    memory_bandwidth& m_memory;
    semaphore_bank& m_semaphores;
    std::vector<std::deque<dma_slice>> m_queues;
    std::size_t m_queued = 0;
    std::size_t m_next_queue = 0; // where the turn starts
    sc_core::sc_event m_wake;
    std::function<void()> m_ended;

    bool m_active = false;
    dma_slice m_slice;
    double m_total = 0;        // work of the slice: bytes plus descriptor overhead
    double m_mark = 0;         // memory_bandwidth's mark when a device-memory slice started
    bool m_memory_done = false;
    std::uint64_t m_started = 0;
    std::uint64_t m_end = 0;   // of a slice that does not touch device memory

    std::uint64_t m_busy_ps = 0; // slices ended
    std::uint64_t m_bytes = 0;
    std::uint64_t m_hbm_bytes = 0;
};

} // namespace neuron::model
