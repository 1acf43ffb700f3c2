#include "neuron/model/runtime/platform.h"

#include <chrono>
#include <fmt/format.h>

namespace neuron::model {
namespace {

std::vector<std::uint64_t> serial_numbers(const platform_config& config, std::uint32_t devices) {
    std::vector<std::uint64_t> serials;
    for (std::uint32_t d = 0; d < devices; ++d) {
        auto it = config.serial_overrides.find(d);
        serials.push_back(it != config.serial_overrides.end() ? it->second : derive_serial(config.seed, d));
    }
    return serials;
}

std::int64_t start_epoch(const platform_config& config) {
    if (config.start_epoch_ns) return *config.start_epoch_ns;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

std::unique_ptr<published_state> make_published_state(const platform_config& config) {
    validate(config);
    const auto& type = find_instance_type(config.instance);
    return std::make_unique<published_state>(type, serial_numbers(config, type.device_count), config.mode,
                                             config.real_time_factor, start_epoch(config));
}

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
    for (std::uint32_t d = 0; d < m_state.device_count(); ++d) {
        m_devices.push_back(std::make_unique<neuron_device>(fmt::format("neuron{}", d).c_str(), d, m_state, m_counters,
                                                            m_owners, duration, m_debug_events));
        m_devices.back()->resets().count_probe_reset();
    }
    // After the probe: a recorded host's counters replace what the probe counted.
    if (config.counter_script && !config.counter_script->empty()) {
        m_counter_script = std::make_unique<counter_script_player>("counter_script", m_counters, config.counter_script);
    }
}

neuron_device& platform::device(std::uint32_t index) {
    m_state.check_device(index);
    return *m_devices[index];
}

} // namespace neuron::model
