#include "neuron/model/timed_callbacks.h"

namespace neuron::model {

timed_callbacks::timed_callbacks(sc_core::sc_module_name name) : sc_module(name) {
    SC_METHOD(run_due);
    sensitive << m_wake;
    dont_initialize();
}

void timed_callbacks::at(sc_core::sc_time when, std::function<void()> callback) {
    const auto now = sc_core::sc_time_stamp();
    if (when < now) when = now;
    m_queue.push({when, m_next_order++, std::move(callback)});
    // notify() keeps the earlier of a pending and a new notification.
    m_wake.notify(m_queue.top().when - now);
}

void timed_callbacks::run_due() {
    const auto now = sc_core::sc_time_stamp();
    while (!m_queue.empty() && m_queue.top().when <= now) {
        auto callback = m_queue.top().callback;
        m_queue.pop();
        callback(); // may schedule more
    }
    if (!m_queue.empty()) m_wake.notify(m_queue.top().when - now);
}

} // namespace neuron::model
