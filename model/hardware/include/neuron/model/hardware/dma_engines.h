#pragma once

#include "neuron/model/hardware/memory_bandwidth.h"
#include "neuron/model/hardware/semaphore_bank.h"
#include "neuron/model/program/program.h"

#include <systemc>

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace neuron::model {

// What a core's DMA engines did: busy time and data bytes, summed over them.
struct dma_totals {
    std::uint64_t busy_ps = 0;
    std::uint64_t bytes = 0;
    std::uint64_t hbm_bytes = 0; // of which to or from device memory
};

// Told when DMA engines start moving slices of a transfer, while it watches.
class dma_observer {
public:
    // `first_engine` is the lowest of the engines starting.
    virtual void moving(const dma_transfer& t, std::uint32_t first_engine) = 0;

protected:
    ~dma_observer() = default;
};

// Told of every run of slices that ended, or was cut short by stop(), while
// it records (a profile).
class dma_recorder {
public:
    // The slices of `t` (submitted as `serial`: a program's loop submits
    // one transfer many times) on `engines` moved `bytes` together from
    // `started_ps` until now.
    virtual void run_ended(const dma_transfer& t, std::uint64_t serial, std::uint32_t engines, std::uint64_t started_ps,
                           std::uint64_t bytes, bool cut) = 0;

protected:
    ~dma_recorder() = default;
};

// A core's DMA engines and their queues (rings), one process. A transfer
// reaches its queue some time after its instruction and is split into
// slices, one per engine it spans (slice s on engine s modulo their count),
// sharing its partitions equally. Each engine takes the heads of its queues
// in turn and moves one slice at a time: its bytes plus a per-descriptor
// overhead at the engine's rate, or at its share of device memory when that
// is smaller (memory_bandwidth), then adds 1 to the transfer's semaphore.
// A transfer that finds its engines idle reaches them one after another,
// `engine_stagger_ns` apart, so its data ends that much later per engine
// after the first than if they had all started at once: each slice takes
// that much more of its engine's time (as bytes at the engine's rate, so
// that it needs no event of its own). One queued behind another reaches
// them while they still move the other's data, and pays nothing
// (dma_overheads).
//
// Slices of one transfer and one size that start together end together, so
// the model keeps them as one run: one memory entry weighted by their number,
// one end, one semaphore add. A transfer spread over idle engines costs what
// one slice does. Busy time and bytes are computed from timestamps when read.
// Kernel thread only.
// What a DMA slice costs beyond its bytes.
struct dma_overheads {
    std::uint64_t descriptor_bytes = 0;  // each descriptor, at the engine's rate
    std::uint64_t engine_stagger_ns = 0; // per engine after the first, when a transfer starts on idle ones
};

class dma_engines : public sc_core::sc_module, private memory_client {
public:
    SC_HAS_PROCESS(dma_engines);
    dma_engines(sc_core::sc_module_name name, std::uint32_t engines, std::uint32_t queues, double bytes_per_ns,
                dma_overheads overheads, memory_bandwidth& memory, semaphore_bank& semaphores);

    std::uint32_t engine_count() const { return static_cast<std::uint32_t>(m_engines.size()); }
    std::uint32_t queue_count() const { return m_queue_count; }
    double peak_bytes_per_ps() const { return m_peak; }

    // `ended(n)` runs after n slices ended (and their semaphore was written).
    void on_slices_end(std::function<void(std::uint32_t)> ended) { m_ended = std::move(ended); }
    // `o` (or nobody, with nullptr) hears of each run of slices starting.
    void watch(dma_observer* o) { m_observer = o; }
    // `r` (or nobody, with nullptr) hears of every run that ends.
    void record(dma_recorder* r) { m_recorder = r; }
    // `t` (which must outlive its slices), issued by engine `issuer`,
    // reaches queue t.queue at `arrives_ps`; returns how many slices it
    // makes. Transfers arriving in the same picosecond are queued in their
    // issuers' order (engine_kind), then as submitted: not as the
    // simulation happened to run the engines that issued them. Throws
    // invalid_argument_error for a queue that does not exist or no engines.
    std::uint32_t submit(const dma_transfer& t, std::uint64_t arrives_ps, engine_kind issuer);
    // What the last submit() called its transfer (run_ended() names it so).
    std::uint64_t last_serial() const { return m_last_serial; }
    // Drops every slice moving or queued and every transfer on its way, as
    // an abort does; what moved so far stays counted.
    void stop();
    // The lowest engine moving a slice of a transfer of device memory now.
    std::optional<std::uint32_t> moving_device_memory() const;
    // Slices moving or queued, and transfers on their way.
    bool idle() const { return m_busy == 0 && m_has_queued == 0 && m_arrivals.empty(); }

    std::uint64_t busy_ps(std::uint32_t engine) const;
    std::uint64_t bytes_moved(std::uint32_t engine) const;
    std::uint64_t hbm_bytes_moved(std::uint32_t engine) const;
    dma_totals totals() const;

private:
    // The slices of one transfer that go on distinct engines: slice s of a
    // transfer is in round s / engines, on engine s modulo engines.
    struct round {
        const dma_transfer* transfer;
        std::uint64_t serial;      // of its transfer
        std::uint32_t pending;     // a bit per engine yet to take its slice
        std::uint32_t bigger;      // a bit per engine whose slice has one descriptor more
        std::uint32_t descriptors; // of the others
    };
    // Queue q of every engine: the rounds in arrival order; an engine's next
    // slice in it is in the first round pending for it.
    struct queue {
        std::vector<round> rounds;
        std::size_t head = 0;
        std::uint32_t waiting = 0; // a bit per engine with a slice in it
        std::uint32_t turn = 0;    // a bit per engine whose turn starts here
    };
    // What slices that ended moved: per engine, and in a few entries shared
    // by the engines of a run (a run adds to one entry, not to each engine's).
    struct moved {
        std::uint64_t busy_ps = 0;
        std::uint64_t bytes = 0;
        std::uint64_t hbm_bytes = 0;
    };
    struct shared_moved {
        std::uint32_t engines;
        moved figures;
    };
    struct run {
        std::uint64_t serial = 0; // 0: none
        const dma_transfer* transfer = nullptr;
        std::uint64_t transfer_serial = 0;
        std::uint32_t engines = 0; // a bit per engine
        std::uint32_t slices = 0;
        std::uint32_t descriptors = 0; // of each slice
        double work = 0;               // of each slice: bytes, descriptor overhead and stagger, at its rate
        bool by_memory = false;        // timed by memory_bandwidth
        double mark = 0;               // memory_bandwidth's, when it started
        std::uint64_t started = 0;
        std::uint64_t end = 0; // when timed by the engines
    };
    struct arrival {
        std::uint64_t at;
        engine_kind issuer;
        const dma_transfer* transfer;
        std::uint64_t serial;
    };

    void step();
    void memory_done(std::uint64_t token) override;
    void admit(std::uint64_t now);
    void start_free(std::uint64_t now);
    struct run_groups; // the runs start_free() starts, by their lowest engine
    void take(std::uint32_t q, std::uint32_t takers, run_groups& groups);
    void pass_turn(std::uint32_t engines, std::uint32_t from, std::uint32_t q);
    void start_run(const dma_transfer& t, std::uint64_t serial, std::uint32_t engines, std::uint32_t descriptors,
                   std::uint32_t staggered, std::uint64_t now);
    bool end_due(std::uint64_t now);
    void end_run(run& r, std::uint64_t now);
    void record(std::uint32_t engines, std::uint64_t busy_ps, std::uint64_t bytes, bool hbm);
    moved ended_on(std::uint32_t engine) const;
    void settle(std::uint64_t now);
    void arm(std::uint64_t now);
    const run* run_on(std::uint32_t engine) const;
    double work_done(const run& r) const;
    std::uint64_t data_moved(const run& r) const;
    std::uint64_t elapsed(const run& r) const;

    std::uint32_t m_queue_count;
    double m_peak;                      // bytes per ps
    double m_descriptor_overhead_bytes; // what each descriptor costs beyond its bytes
    double m_stagger_bytes;             // a lone transfer's slices cost this per engine after the first
    memory_bandwidth& m_memory;
    semaphore_bank& m_semaphores;
    std::vector<moved> m_engines;
    std::vector<shared_moved> m_shared; // a few
    std::vector<queue> m_queues;
    std::vector<run> m_runs;              // at most one per engine
    std::uint32_t m_run_slots = 0;        // a bit per entry of m_runs in use
    std::deque<arrival> m_arrivals;       // by time
    std::uint32_t m_busy = 0;             // a bit per engine moving a slice
    std::uint32_t m_has_queued = 0;       // a bit per engine with queued slices
    std::uint32_t m_waiting_queues = 0;   // a bit per queue with slices
    std::uint32_t m_turn_queues = 1;      // a bit per queue where some engine's turn starts
    std::uint64_t m_wake_at = UINT64_MAX; // when m_wake is due, if it is
    std::uint64_t m_next_serial = 1;      // of transfers and runs
    std::uint64_t m_last_serial = 0;      // of the transfer submitted last
    sc_core::sc_event m_wake;
    std::function<void(std::uint32_t)> m_ended;
    dma_observer* m_observer = nullptr;
    dma_recorder* m_recorder = nullptr;
};

} // namespace neuron::model
