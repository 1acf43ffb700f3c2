#pragma once

#include "neuron/model/debug_event.h"
#include "neuron/model/device_spec.h"
#include "neuron/model/dma_engines.h"
#include "neuron/model/engine.h"
#include "neuron/model/program.h"
#include "neuron/model/semaphore_bank.h"

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace neuron::model {

// On-chip memory of a core; its ECC errors are counted in the device's SRAM
// register (stats/hardware/sram_ecc_uncorrected).
struct core_sram {
    std::uint64_t sbuf_bytes; // state buffer: 128 partitions
    std::uint64_t psum_bytes; // partial-sum buffer
};

class memory_bandwidth;

// What one program run kept its engines busy for and what its DMA moved.
struct run_report {
    std::array<std::uint64_t, engine_count> busy_ps{}; // indexed by engine_kind
    std::uint64_t macs = 0;
    dma_totals dma;
};

// One physical NeuronCore: its engines (children, one process each), its
// semaphore bank, its on-chip SRAM, and its DMA engines with their queues.
// Kernel thread only.
class neuron_core : public sc_core::sc_module {
public:
    neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t device, std::uint32_t index,
                memory_bandwidth& memory, debug_event_source& prints);

    std::uint32_t index() const { return m_index; }
    const std::vector<std::unique_ptr<engine>>& engines() const { return m_engines; }
    engine* find_engine(engine_kind kind) const;
    const dma_engines& dma() const { return m_dma; }
    const core_sram& sram() const { return m_sram; }
    semaphore_bank& semaphores() { return m_semaphores; }

    // Throws unsupported_error when `p` has work for an engine this core
    // lacks, invalid_argument_error when it names a semaphore or print that
    // or a transfer that does not exist. The program last found good is not
    // read again (a repeated execution submits the same one each time).
    void check(const std::shared_ptr<const program>& p);
    // Runs `p` on the engines from now, with the semaphores cleared; `done`
    // runs when every stream has ended and every transfer it started has
    // ended. `execution` is the execution's number (1, 2, ...), what a print
    // filled with `execution` holds. Throws what check() throws, and
    // simulation_error while a run is on.
    using finished = std::function<void(const run_report&)>;
    void run(std::shared_ptr<const program> p, std::uint64_t execution, finished done);
    // Stops the run in progress where it is; its `done` never runs.
    void abort();
    bool busy() const { return m_program != nullptr; }

private:
    void stream_ended();
    void instruction_ended(const instruction& i);
    void start_transfer(const dma_transfer& t);
    void finish_if_done();

    std::uint32_t m_device;
    std::uint32_t m_index;
    core_sram m_sram;
    debug_event_source& m_prints;
    semaphore_bank m_semaphores;
    std::vector<std::unique_ptr<engine>> m_engines;
    dma_engines m_dma;

    std::weak_ptr<const program> m_checked;   // the last program check() found good
    std::shared_ptr<const program> m_program; // the run in progress
    finished m_done;
    std::uint64_t m_execution = 0;
    std::size_t m_streams_left = 0;
    std::size_t m_slices_in_flight = 0;
    run_report m_at_start; // the engines' totals when the run started
};

} // namespace neuron::model
