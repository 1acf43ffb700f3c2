#pragma once

#include "neuron/model/driver/memory_ledger.h"
#include "neuron/model/program/compiled_model.h"
#include "neuron/model/program/program.h"
#include "neuron/model/spec/logical_cores.h"
#include "neuron/model/state/debug_event.h"

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace neuron::model {

// A compiled model loaded on a logical core by one runtime session: its
// memory, how many times it ran, and the state of its fault triggers.
// Kernel thread only.
class loaded_model {
public:
    // `work` is what it runs, built for the device it is loaded on.
    loaded_model(std::uint32_t id, compiled_model compiled, std::uint32_t logical_core,
                 std::shared_ptr<const program> work = std::make_shared<program>());

    std::uint32_t id() const { return m_id; }
    std::uint32_t logical_core() const { return m_logical_core; }
    const compiled_model& compiled() const { return m_compiled; }
    const std::shared_ptr<const program>& work() const { return m_work; }
    std::vector<allocation_id>& allocations() { return m_allocations; }
    const std::vector<allocation_id>& allocations() const { return m_allocations; }

    // Executions submitted and not yet done (the runtime's is_running).
    std::uint32_t in_flight() const { return m_in_flight; }
    void execution_submitted() { ++m_in_flight; }
    void execution_done() { --m_in_flight; }

    // The next execution's number (1, 2, ...) and the status a fault trigger
    // forces on it (0: none). Every probability trigger draws once per
    // execution, so a seed gives the same sequence whatever else is declared.
    struct next_execution {
        std::uint64_t number;
        std::uint32_t forced_status;
    };
    next_execution begin_execution();

    // The device prints of execution `number`, on physical core `on`.
    std::vector<debug_event> prints(std::uint64_t number, physical_core on) const;

private:
    std::uint32_t m_id;
    compiled_model m_compiled;
    std::uint32_t m_logical_core;
    std::shared_ptr<const program> m_work;
    std::vector<allocation_id> m_allocations;
    std::uint64_t m_executions = 0;
    std::uint32_t m_in_flight = 0;
    std::vector<std::mt19937_64> m_generators; // one per fault trigger
    std::vector<bool> m_fired;
};

} // namespace neuron::model
