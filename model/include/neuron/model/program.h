#pragma once

#include "neuron/model/debug_event.h"
#include "neuron/model/device_spec.h"

#include <array>
#include <cstdint>
#include <vector>

namespace neuron::model {

inline constexpr std::uint32_t no_semaphore = UINT32_MAX;
inline constexpr std::uint32_t no_print = UINT32_MAX;

// One instruction as an engine's sequencer runs it, bound to a device
// generation: its cost is already in picoseconds of that engine's clock.
// It first waits until its semaphore reaches a value, then keeps the engine
// busy for `busy_ps`, then adds to a semaphore and emits its device print.
struct instruction {
    std::uint64_t busy_ps = 0;
    std::uint64_t macs = 0;             // multiply-accumulates (tensor work)
    std::uint32_t wait_semaphore = no_semaphore;
    std::uint32_t wait_value = 0;       // proceeds once the semaphore is at least this
    std::uint32_t signal_semaphore = no_semaphore;
    std::uint32_t signal_increment = 1;
    std::uint32_t print = no_print;     // index into program::prints

    bool synchronises() const { return wait_semaphore != no_semaphore || signal_semaphore != no_semaphore || print != no_print; }
};

// What one execution runs on a core: an instruction stream per engine,
// indexed by engine_kind, and the device prints its instructions emit.
struct program {
    std::array<std::vector<instruction>, engine_count> streams;
    std::vector<debug_event> prints; // device and core are set where it runs

    std::size_t instruction_count() const {
        std::size_t n = 0;
        for (const auto& s : streams) n += s.size();
        return n;
    }
};

} // namespace neuron::model
