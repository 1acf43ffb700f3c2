#include "neuron/model/runtime/counter_script.h"

#include "neuron/model/driver/counter_bank.h"
#include "sc_ns.h"

#include <algorithm>

namespace neuron::model {
namespace {

void apply(counter_bank& counters, const scripted_counter_value& v) {
    if (v.action == script_action::add) {
        counters.shift(v.counter, v.field, v.value);
    } else {
        counters.restore(v.counter, v.field, v.value);
    }
}

} // namespace

counter_script_player::counter_script_player(sc_core::sc_module_name name, counter_bank& counters,
                                             std::shared_ptr<const std::vector<scripted_counter_value>> script)
        : sc_module(name), m_counters(counters), m_script(std::move(script)) {
    const auto by_time = [](const auto& a, const auto& b) { return a.at_ns < b.at_ns; };
    if (!std::is_sorted(m_script->begin(), m_script->end(), by_time)) {
        auto sorted = *m_script;
        std::stable_sort(sorted.begin(), sorted.end(), by_time);
        m_script = std::make_shared<const std::vector<scripted_counter_value>>(std::move(sorted));
    }
    const auto& script_values = *m_script;
    // The values at 0 are there before any reader or process looks.
    for (; m_next < script_values.size() && script_values[m_next].at_ns == 0; ++m_next) {
        apply(m_counters, script_values[m_next]);
    }
    SC_METHOD(play);
    sensitive << m_due;
    dont_initialize();
    if (m_next < script_values.size()) m_due.notify(ns_to_sc(script_values[m_next].at_ns));
}

void counter_script_player::play() {
    const auto& script = *m_script;
    const auto now = sc_to_ns(sc_core::sc_time_stamp());
    for (; m_next < script.size() && script[m_next].at_ns <= now; ++m_next) {
        apply(m_counters, script[m_next]);
    }
    if (m_next < script.size()) m_due.notify(ns_to_sc(script[m_next].at_ns - now));
}

} // namespace neuron::model
