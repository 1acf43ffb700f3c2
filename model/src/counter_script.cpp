#include "neuron/model/counter_script.h"

#include "neuron/model/counter_bank.h"

#include <algorithm>

namespace neuron::model {

counter_script_player::counter_script_player(sc_core::sc_module_name name, counter_bank& counters,
                                             std::vector<scripted_counter_value> script)
    : sc_module(name), m_counters(counters), m_script(std::move(script)) {
    std::stable_sort(m_script.begin(), m_script.end(),
                     [](const auto& a, const auto& b) { return a.at_ns < b.at_ns; });
    // The values at 0 are there before any reader or process looks.
    for (; m_next < m_script.size() && m_script[m_next].at_ns == 0; ++m_next) {
        const auto& v = m_script[m_next];
        m_counters.restore(v.counter, v.field, v.value);
    }
    SC_METHOD(play);
    sensitive << m_due;
    dont_initialize();
    if (m_next < m_script.size()) {
        m_due.notify(sc_core::sc_time(static_cast<double>(m_script[m_next].at_ns), sc_core::SC_NS));
    }
}

void counter_script_player::play() {
    const auto now = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value() / 1000); // ps -> ns
    for (; m_next < m_script.size() && m_script[m_next].at_ns <= now; ++m_next) {
        const auto& v = m_script[m_next];
        m_counters.restore(v.counter, v.field, v.value);
    }
    if (m_next < m_script.size()) {
        const auto wait_ns = m_script[m_next].at_ns - now;
        m_due.notify(sc_core::sc_time(static_cast<double>(wait_ns), sc_core::SC_NS));
    }
}

} // namespace neuron::model
