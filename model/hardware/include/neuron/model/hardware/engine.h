#pragma once

#include "neuron/model/hardware/memory_ports.h"
#include "neuron/model/hardware/semaphore_bank.h"
#include "neuron/model/hardware/tensor_throttle.h"
#include "neuron/model/program/program.h"
#include "neuron/model/spec/device_spec.h"

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace neuron::model {

// Told when an engine is about to start instructions (at `at_ps`, now or
// later), while it watches.
class stretch_observer {
public:
    virtual void starting(engine_kind kind, std::uint64_t at_ps) = 0;

protected:
    ~stretch_observer() = default;
};

// Told of every stretch an engine runs, for what grows while it runs
// (the tensor engine's PE counters).
class stretch_meter {
public:
    // The `count` instructions from `first` on start at `start_ps` (now or
    // later) and keep the engine busy for `length_ps`.
    virtual void started(std::uint64_t start_ps, std::uint64_t length_ps, const instruction_cursor& first,
                         std::uint64_t count) = 0;
    // The stretch stopped after `done_ps` of it: all of it, or less when
    // the engine was stopped.
    virtual void stopped(std::uint64_t done_ps) = 0;

protected:
    ~stretch_meter() = default;
};

// One compute engine of a NeuronCore: a sequencer running its instruction
// stream, one process. It waits on semaphores (an instruction that waits
// starts the generation's dependency_cycles (core_costs.h) after the semaphore reached its value; the
// bank tells it then, not at every change), stays
// busy for each instruction's cost and adds to semaphores when an
// instruction ends.
// Instructions that neither wait, signal nor print run as one stretch of
// busy time, so the process wakes only where something can be seen.
// Kernel thread only.
class engine : public sc_core::sc_module, private semaphore_waiter {
public:
    SC_HAS_PROCESS(engine);
    engine(sc_core::sc_module_name name, engine_spec spec, const core_costs& costs, semaphore_bank& semaphores);

    engine_kind type() const { return m_spec.kind; }
    std::uint64_t clock_hz() const { return m_spec.clock_hz; }

    using finished = std::function<void()>;
    // An instruction that prints or starts a DMA transfer, and when it ends.
    using effects = std::function<void(const instruction&, std::uint64_t end_ps)>;
    // Runs `stream` (which must outlive the run) from `after_ps` from now,
    // reading it through a cursor, after `preamble` (when not null: the
    // engine's own instructions, core_costs); `done` runs when its last
    // instruction ends, `ended` when one that prints or starts a DMA
    // transfer ends; for a transfer, it may run as early as when its
    // stretch starts, told the time it ends (start_stretch()).
    void start(const instruction_stream& stream, finished done, effects ended, std::uint64_t after_ps = 0,
               const instruction_stream* preamble = nullptr);
    // Abandons the stream where it is; `done` never runs.
    void stop();
    bool running() const { return m_stream != nullptr; }
    // `o` (or nobody, with nullptr) hears of each stretch it starts.
    void watch(stretch_observer* o) { m_observer = o; }
    // `m` hears of every stretch from now on.
    void meter(stretch_meter* m) { m_meter = m; }
    // `r` (or nobody, with nullptr) hears of every stretch too (a profile).
    void record(stretch_meter* r) { m_recorder = r; }
    // Runs at full speed always, whatever its generation's current limit.
    void leave_out_throttle() { m_throttle.reset(); }
    // Its current limit, where it has one (trn2's Tensor engine), or nullptr.
    const tensor_throttle* throttle() const { return m_throttle.get(); }
    // Its stretches wait for the data-path ports they share (NC-v2).
    void share(memory_ports* ports) { m_ports = ports; }

    // Busy time since the simulation started, up to now (the instruction in
    // progress counts for the part of it already run).
    std::uint64_t busy_ps() const;

private:
    void step();
    void semaphore_reached(std::uint32_t index) override;
    void end_stretch();
    void start_stretch(std::uint64_t start, std::uint64_t now);
    std::uint64_t stretch_done_ps(std::uint64_t now) const;
    std::uint32_t wait_value(std::uint32_t semaphore, std::uint32_t written) const;

    engine_spec m_spec;
    semaphore_bank& m_semaphores;
    sc_core::sc_event m_kick;  // a stream starts
    sc_core::sc_event m_timer; // the stretch running ends
    const instruction_stream* m_stream = nullptr;
    const instruction_stream* m_then = nullptr;  // the stream after the preamble running
    instruction_cursor m_next;                   // the first instruction not yet started
    const instruction* m_stretch_last = nullptr; // the last of the stretch running
    bool m_in_stretch = false;
    bool m_issued_early = false;       // the last of the stretch running issued its transfer as it started
    std::uint64_t m_stretch_start = 0; // ps; may be later than now
    std::uint64_t m_stretch_ps = 0;
    std::uint64_t m_busy_ps = 0; // stretches completed
    std::uint64_t m_dependency_ps;
    finished m_done;
    effects m_effects;
    stretch_observer* m_observer = nullptr;
    stretch_meter* m_meter = nullptr;
    stretch_meter* m_recorder = nullptr;
    memory_ports* m_ports = nullptr;
    std::unique_ptr<tensor_throttle> m_throttle; // trn2's Tensor engine
};

} // namespace neuron::model
