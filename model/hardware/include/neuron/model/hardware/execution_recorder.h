#pragma once

#include "neuron/model/hardware/dma_engines.h"
#include "neuron/model/hardware/engine.h"
#include "neuron/model/hardware/semaphore_bank.h"
#include "neuron/model/program/program.h"
#include "neuron/model/state/hardware_fault.h"

#include "neuron/profile/timeline.h"

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace neuron::model {

// Records what one profiled run does on a core into a profile timeline
// (profile/timeline.h): each instruction as its engine runs it, each DMA
// run, each semaphore change, the transfers issued and the fault that
// stopped the run. It listens to the parts while the run lasts and adds no
// event of its own; times are computed from what the parts report. Kernel
// thread only.
class execution_recorder final : private dma_recorder, private semaphore_recorder {
public:
    execution_recorder(std::shared_ptr<const program> p, profile::core_timeline& out);

    // Attaches to (and detach() leaves) the core's parts.
    void attach(std::span<const std::unique_ptr<engine>> engines, dma_engines& dma, semaphore_bank& semaphores);
    void detach(std::span<const std::unique_ptr<engine>> engines, dma_engines& dma, semaphore_bank& semaphores);

    // `t`, submitted as `serial`, by the instruction `issuer` ran last.
    void transfer_issued(const dma_transfer& t, std::uint64_t serial, engine_kind issuer, std::uint64_t arrives_ps);
    void fault(const fault_strike& f, std::uint64_t at_ps);

private:
    // One engine's stretches: each instruction of a stretch starts where the
    // one before it ended.
    class engine_meter final : public stretch_meter {
    public:
        engine_meter(execution_recorder& owner, engine_kind kind) : m_owner(owner), m_kind(kind) {}
        void started(std::uint64_t start_ps, std::uint64_t length_ps, const instruction_cursor& first,
                     std::uint64_t count) override;
        void stopped(std::uint64_t done_ps) override;
        std::vector<profile::instruction_record>& records() { return m_records; }

    private:
        execution_recorder& m_owner;
        engine_kind m_kind;
        std::vector<profile::instruction_record> m_records;
        std::size_t m_first = 0; // the stretch's first record
        std::uint64_t m_start_ps = 0;
        std::uint64_t m_length_ps = 0;
    };

    void run_ended(const dma_transfer& t, std::uint64_t serial, std::uint32_t engines, std::uint64_t started_ps,
                   std::uint64_t bytes, bool cut) override;
    void semaphore_changed(std::uint32_t index, std::uint32_t value) override;

    std::shared_ptr<const program> m_program;
    profile::core_timeline& m_out;
    std::array<engine_meter, engine_count> m_meters;
    std::unordered_map<std::uint64_t, std::uint32_t> m_transfer_records; // by serial, into m_out.transfers
    std::uint32_t m_work_opcode = 0;                                     // what a work: model's instruction is called
    std::uint32_t m_preamble_opcode = 0; // what an engine's preamble instruction is called
    // The time under the Tensor engine's current limit (where it has one)
    // that a stretch added to the throttle's figures: a throttle_record.
    void limit_changed(std::uint64_t start_ps);
    const tensor_throttle* m_throttle = nullptr;
    std::uint64_t m_limited_seen_ps = 0; // its figures when last looked at
    std::uint64_t m_limited_work_seen_ps = 0;
};

} // namespace neuron::model
