#pragma once

#include "neuron/model/spec/counter.h"

#include <systemc>

#include <cstdint>
#include <map>
#include <set>

namespace neuron::model {

class counter_bank;

// Memory categories as drivers 2.10 to 2.16 kept them (driver-sysfs.md §1,
// 2.10.11.0): the runtime's datastore holds each category's bytes, and a
// driver thread sets every category counter to its datastore value (total =
// present = value) once a period, on the period's boundaries since the
// driver loaded. An allocation moves the datastore value at once; its
// category counter follows at the next boundary. Events only when a value
// moved: one wake at that boundary.
class category_poller : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(category_poller);
    category_poller(sc_core::sc_module_name name, counter_bank& counters, sc_core::sc_time period);

    // The datastore's value of `category` grows (or shrinks) by `bytes`.
    void add(counter_ref category, std::uint64_t bytes);
    void remove(counter_ref category, std::uint64_t bytes);

private:
    void mark(counter_ref category);
    void poll(); // at a boundary: set every counter whose value moved

    counter_bank& m_counters;
    sc_core::sc_time m_period;
    std::map<counter_ref, std::uint64_t> m_datastore;
    std::set<counter_ref> m_moved;
    sc_core::sc_event m_boundary;
};

} // namespace neuron::model
