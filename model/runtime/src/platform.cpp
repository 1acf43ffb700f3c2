#include "neuron/model/runtime/platform.h"

namespace neuron::model {
platform::platform(sc_core::sc_module_name name, const platform_config& config, published_state& state)
        : sc_module(name), m_state(state), m_notifier(m_state), m_counters(m_state, m_notifier),
          m_memory(m_state, m_counters), m_owners(m_state, m_counters, m_memory),
          m_executions(m_state, m_owners, m_debug_events,
                       [this](std::uint32_t d, std::uint32_t c) -> neuron_core& { return device(d).core(c); }) {
    m_collectives = std::make_unique<model::collectives>("collectives", m_state.instance());
    if (config.category_poll_period) {
        m_category_poller = std::make_unique<category_poller>(
            "category_poller", m_counters,
            sc_core::sc_time(static_cast<double>(config.category_poll_period->count()), sc_core::SC_NS));
        m_memory.poll_categories_with(*m_category_poller);
    }
    const auto duration = sc_core::sc_time(static_cast<double>(config.reset_duration.count()), sc_core::SC_NS);
    m_hardware =
        std::make_unique<instance_hardware>("hardware", m_state, m_counters, m_owners, duration, m_debug_events);
    for (std::uint32_t d = 0; d < device_count(); ++d) {
        for (std::uint32_t c = 0; c < device(d).core_count(); ++c) {
            if (!config.execution_overhead) device(d).core(c).leave_out_execution_overhead();
            if (!config.tensor_throttle) device(d).core(c).leave_out_tensor_throttle();
        }
    }
    // After the probe: a recorded host's counters replace what the probe counted.
    if (config.counter_script && !config.counter_script->empty()) {
        m_counter_script = std::make_unique<counter_script_player>("counter_script", m_counters, config.counter_script);
    }
}

} // namespace neuron::model
