#pragma once

#include "neuron/model/spec/counter.h"

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

namespace neuron::model {

class counter_bank;

// Plays a script of counter changes: each field takes its value, or grows by
// it, at its instant (those at 0 before anything else runs), notifying the
// field when it moved. The counters follow the model's rules throughout, so
// what the model counts adds to what the host had.
class counter_script_player : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(counter_script_player);
    // Kept as shared when already in time order (as a replay plan makes
    // it); else a copy sorted by time, stably.
    counter_script_player(sc_core::sc_module_name name, counter_bank& counters,
                          std::shared_ptr<const std::vector<scripted_counter_value>> script);

private:
    void play(); // every value due now, then wait for the next instant

    counter_bank& m_counters;
    std::shared_ptr<const std::vector<scripted_counter_value>> m_script; // by time, stable
    std::size_t m_next = 0;
    sc_core::sc_event m_due;
};

} // namespace neuron::model
