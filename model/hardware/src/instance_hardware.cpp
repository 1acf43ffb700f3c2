#include "neuron/model/hardware/instance_hardware.h"

#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

namespace neuron::model {

instance_hardware::instance_hardware(sc_core::sc_module_name name, published_state& state, counter_bank& counters,
                                     const device_openers& openers, sc_core::sc_time reset_duration,
                                     debug_event_source& prints)
        : sc_module(name), m_state(state) {
    for (std::uint32_t d = 0; d < m_state.device_count(); ++d) {
        m_devices.push_back(std::make_unique<neuron_device>(fmt::format("neuron{}", d).c_str(), d, m_state, counters,
                                                            openers, reset_duration, prints));
        m_devices.back()->resets().count_probe_reset();
    }
}

neuron_device& instance_hardware::device(std::uint32_t index) {
    m_state.check_device(index);
    return *m_devices[index];
}

} // namespace neuron::model
