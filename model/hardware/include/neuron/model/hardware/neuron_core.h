#pragma once

#include "neuron/model/hardware/dma_engines.h"
#include "neuron/model/hardware/engine.h"
#include "neuron/model/hardware/execution_recorder.h"
#include "neuron/model/hardware/pe_meter.h"
#include "neuron/model/hardware/semaphore_bank.h"
#include "neuron/model/program/program.h"
#include "neuron/model/spec/device_spec.h"
#include "neuron/model/state/debug_event.h"
#include "neuron/model/state/hardware_fault.h"

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace neuron::model {

// On-chip memory of a core; its ECC errors are counted in the device's SRAM
// register (stats/hardware/sram_ecc_uncorrected).
struct core_sram {
    std::uint64_t sbuf_bytes; // state buffer: 128 partitions
    std::uint64_t psum_bytes; // partial-sum buffer
};

class ecc_unit;
class memory_bandwidth;
class published_state;

// What one program run kept its engines busy for and what its DMA moved.
struct run_report {
    std::array<std::uint64_t, engine_count> busy_ps{}; // indexed by engine_kind
    std::uint64_t macs = 0;
    dma_totals dma;
    std::optional<fault_strike> fault; // what stopped it, if a fault did
    // An error in the core's memory channel met during a run that moves no
    // device memory (memory_error): left to be judged at the run's end.
    std::optional<fault_kind> memory_error;
    // What it did, instruction by instruction, when it was profiled.
    std::shared_ptr<profile::core_timeline> profile;
};

// How a run may end other than by finishing.
struct run_options {
    std::optional<fault_kind> fault;               // a fault trigger's: strikes where it happens, else at the end
    std::uint64_t timeout_ps = 30'000'000'000'000; // how long the runtime waits for a hung core
    // Set: the run is recorded into it (its place, times and figures too)
    // and comes back in the run's report.
    std::shared_ptr<profile::core_timeline> profile;
};

// One physical NeuronCore: its engines (children, one process each), its
// semaphore bank, its on-chip SRAM, and its DMA engines with their queues.
// Faults armed on it wait for what they name (hardware_fault.h) and stop
// the run there. Kernel thread only.
class neuron_core : public sc_core::sc_module, private stretch_observer, private dma_observer {
public:
    SC_HAS_PROCESS(neuron_core);
    neuron_core(sc_core::sc_module_name name, const device_spec& spec, std::uint32_t device, std::uint32_t index,
                memory_bandwidth& memory, ecc_unit& ecc, debug_event_source& prints, published_state& state);

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
    // Runs pay no preamble or postamble from now on, nor their engines'
    // preambles (platform_config::execution_overhead).
    void leave_out_execution_overhead() {
        m_preamble_ps = m_postamble_ps = 0;
        m_engine_preamble = {};
    }
    // Its Tensor engine runs at full speed always (platform_config::tensor_throttle).
    void leave_out_tensor_throttle();
    // Runs `p` on the engines from the end of the generation's execution
    // preamble, each engine's stream after its own preamble
    // (core_costs::engine_preamble_instructions) unless the program's
    // streams include theirs, with the semaphores cleared; `done` runs at the end of the
    // postamble that follows the last stream's end and the last transfer's
    // (core_costs::execution_preamble_ns, execution_postamble_ns). `execution` is the execution's number (1, 2, ...),
    // what a print filled with `execution` holds. Throws what check() throws, and simulation_error while a run is on.
    // A fault stops it early: `done` then has the fault's report.
    using finished = std::function<void(const run_report&)>;
    void run(std::shared_ptr<const program> p, std::uint64_t execution, finished done, run_options options = {});
    // Stops the run in progress where it is; its `done` never runs.
    void abort();
    // The same, for a run the runtime gave up on: what it did until now.
    run_report give_up();
    bool busy() const { return m_program != nullptr; }
    // A fault has struck the run in progress, which ends by `at_ps` with it.
    bool stopping_by(std::uint64_t at_ps) const { return m_strike && m_strike_ps <= at_ps; }

    // Arms `f` until it strikes, in this run or a later one. Throws
    // invalid_argument_error for an engine the core lacks or a queue that
    // does not exist, or an engine and a queue together.
    void arm(const armed_fault& f);
    const std::vector<armed_fault>& armed() const { return m_armed; }

    // The DRAM/HBM channel this core's DMA reads (memory_channel_of).
    std::uint32_t memory_channel() const { return m_channel; }
    // An uncorrected error in memory_channel(), already counted in the ECC
    // registers, meets the run in progress as `kind` (a fault that strikes
    // transfers of device memory): it strikes when the run's DMA engines
    // next start moving device memory, at once if they are moving some, and
    // not at all if the run moves no more. A run whose program moves no
    // device memory ends as it would, with the error in its report. An idle
    // core, or a run already stopping, is not touched; a second error in
    // one run changes nothing.
    void memory_error(fault_kind kind);

private:
    void starting(engine_kind kind, std::uint64_t at_ps) override;
    void moving(const dma_transfer& t, std::uint32_t first_engine) override;
    void strike(std::size_t armed_index, std::uint64_t at_ps, std::uint32_t dma_engine);
    void stop_at(const fault_strike& f, std::uint64_t at_ps, bool counted);
    void strike_due();
    // The run's postamble is over: it completes.
    void complete();
    void fail(const fault_strike& f, bool counted);
    void hang();
    void watch_for_faults();
    run_report report_now() const;
    void stream_ended();
    void instruction_ended(const instruction& i, engine_kind on, std::uint64_t end_ps);
    void start_transfer(const dma_transfer& t, engine_kind issuer, std::uint64_t issued_ps);
    void finish_if_done();
    // Stops the engines and the DMA engines and forgets the run; returns
    // what was recorded of it, if it was profiled.
    std::shared_ptr<profile::core_timeline> stop_run();
    void start_recording(std::shared_ptr<profile::core_timeline> out);
    std::shared_ptr<profile::core_timeline> end_recording();

    std::uint32_t m_device;
    std::uint32_t m_index;
    std::uint32_t m_channel;
    core_sram m_sram;
    ecc_unit& m_ecc;
    debug_event_source& m_prints;
    semaphore_bank m_semaphores;
    std::vector<std::unique_ptr<engine>> m_engines;
    dma_engines m_dma;
    // Every run's fixed cost before its engines start and after they end (K1).
    std::uint64_t m_preamble_ps;
    std::uint64_t m_postamble_ps;
    instruction_stream m_engine_preamble; // what every engine runs before its stream
    pe_meter m_pe;
    memory_ports m_ports;
    profile::core_figures m_figures; // what a profile of it computes with

    std::weak_ptr<const program> m_checked;   // the last program check() found good
    std::shared_ptr<const program> m_program; // the run in progress
    finished m_done;
    std::uint64_t m_execution = 0;
    std::size_t m_streams_left = 0;
    std::size_t m_slices_in_flight = 0;
    run_report m_at_start; // the engines' totals when the run started
    std::uint64_t m_started_ps = 0;
    run_options m_options;

    std::vector<armed_fault> m_armed; // the run's trigger first, if it has one
    bool m_trigger_armed = false;     // m_armed.front() is the run's trigger
    // An error injected in the core's memory channel during the run
    // (memory_error): it waits for a transfer of device memory, or goes into
    // the run's report when the program moves none.
    struct injected_error {
        fault_kind kind;
        bool at_end;
    };
    std::optional<injected_error> m_memory_error;
    std::optional<fault_strike> m_strike; // struck, stopping the run at m_strike_ps
    bool m_strike_counted = false;        // its error is in the ECC registers already
    std::uint64_t m_strike_ps = 0;
    sc_core::sc_event m_strike_event;
    sc_core::sc_event m_postamble_end;
    bool m_in_postamble = false;

    std::unique_ptr<execution_recorder> m_recorder; // while a profiled run lasts
    std::shared_ptr<profile::core_timeline> m_profile;
};

} // namespace neuron::model
