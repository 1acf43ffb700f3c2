#include "neuron/model/driver/category_poller.h"

#include "neuron/model/driver/counter_bank.h"

namespace neuron::model {

category_poller::category_poller(sc_core::sc_module_name name, counter_bank& counters, sc_core::sc_time period)
        : sc_module(name), m_counters(counters), m_period(period) {
    SC_METHOD(poll);
    sensitive << m_boundary;
    dont_initialize();
}

void category_poller::add(counter_ref category, std::uint64_t bytes) {
    m_datastore[category] += bytes;
    mark(category);
}

void category_poller::remove(counter_ref category, std::uint64_t bytes) {
    m_datastore[category] -= bytes; // wraps as the datastore's u64 would
    mark(category);
}

void category_poller::mark(counter_ref category) {
    m_moved.insert(category);
    // The next boundary strictly after now: a change at a boundary is seen
    // by the poll of the one after (the thread read the datastore first).
    const auto now = sc_core::sc_time_stamp();
    const auto periods = static_cast<std::uint64_t>(now / m_period) + 1;
    m_boundary.notify(m_period * static_cast<double>(periods) - now); // an earlier pending one stays
}

void category_poller::poll() {
    for (const auto& category : m_moved) m_counters.set(category, m_datastore[category]);
    m_moved.clear();
}

} // namespace neuron::model
