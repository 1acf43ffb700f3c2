#pragma once

// Helpers for tests that run the model on its kernel thread.

#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"

#include <chrono>
#include <ostream>
#include <string>

namespace neuron::model {
inline std::ostream& operator<<(std::ostream& os, device_state s) { return os << static_cast<int>(s); }
inline std::ostream& operator<<(std::ostream& os, reset_outcome o) { return os << static_cast<int>(o); }
inline std::ostream& operator<<(std::ostream& os, reset_result r) { return os << static_cast<int>(r); }
} // namespace neuron::model

namespace neuron::model::testing {

using namespace std::chrono_literals;

inline platform_config stepped(std::string instance, std::chrono::nanoseconds reset_duration = 1s) {
    platform_config config;
    config.instance = std::move(instance);
    config.mode = time_mode::stepped;
    config.reset_duration = reset_duration;
    config.start_epoch_ns = 1'789'180'860'000'000'000;
    config.execution_overhead = false; // the engines' and DMA's work alone; execution_overhead_test has it
    config.tensor_throttle = false;    // full speed always; hardware_figures_test has the limit
    return config;
}

inline counter_value core_counter(const simulation& sim, std::uint32_t device, std::uint32_t core, counter_kind kind) {
    return sim.published().counter(counter_ref::of_core(device, core, kind));
}

} // namespace neuron::model::testing
