#pragma once

#include "neuron/model/hardware/neuron_device.h"

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

namespace neuron::model {

// The instance's hardware: its Neuron devices, each reset once as the
// driver's probe resets it when it loads.
class instance_hardware : public sc_core::sc_module {
public:
    instance_hardware(sc_core::sc_module_name name, published_state& state, counter_bank& counters,
                      const device_openers& openers, sc_core::sc_time reset_duration, debug_event_source& prints);

    neuron_device& device(std::uint32_t index);
    std::uint32_t device_count() const { return static_cast<std::uint32_t>(m_devices.size()); }

private:
    published_state& m_state;
    std::vector<std::unique_ptr<neuron_device>> m_devices;
};

} // namespace neuron::model
