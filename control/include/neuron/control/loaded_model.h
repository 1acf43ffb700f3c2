#pragma once

#include "neuron/control/logical_cores.h"
#include "neuron/control/model_file.h"
#include "neuron/model/debug_event.h"
#include "neuron/model/memory_ledger.h"

#include <cstdint>
#include <random>
#include <vector>

namespace neuron::control {

// A model file loaded on a logical core by one runtime session: its memory,
// how many times it ran, and the state of its fault triggers.
class loaded_model {
public:
    loaded_model(std::uint32_t id, model_definition definition, std::uint32_t logical_core);

    std::uint32_t id() const { return m_id; }
    std::uint32_t logical_core() const { return m_logical_core; }
    const model_definition& definition() const { return m_definition; }
    std::vector<model::allocation_id>& allocations() { return m_allocations; }

    // The next execution's number (1, 2, ...) and the status a fault trigger
    // forces on it (0: none). Every probability trigger draws once per
    // execution, so a seed gives the same sequence whatever else is declared.
    struct next_execution {
        std::uint64_t number;
        std::uint32_t forced_status;
    };
    next_execution begin_execution();

    // The device prints of execution `number`, on physical core `on`.
    std::vector<model::debug_event> prints(std::uint64_t number, physical_core on) const;

private:
    std::uint32_t m_id;
    model_definition m_definition;
    std::uint32_t m_logical_core;
    std::vector<model::allocation_id> m_allocations;
    std::uint64_t m_executions = 0;
    std::vector<std::mt19937_64> m_generators; // one per fault trigger
    std::vector<bool> m_fired;
};

// Tensor bytes of `count` elements of a debug dtype, each holding `value`
// (or its index, for iota). Integer and float32/float16/bfloat16 dtypes
// hold the value itself; the 8-bit float and packed types hold its low byte.
std::vector<std::uint8_t> print_data(std::string_view dtype, std::uint64_t count, print_fill fill, double value);

} // namespace neuron::control
