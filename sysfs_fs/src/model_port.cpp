#include "neuron/sysfs/model_port.h"

namespace neuron::sysfs {

void simulation_port::clear_counter(const model::counter_ref& counter, model::counter_field field) {
    m_model.clear_counter(counter, field);
}

void simulation_port::set_notifications(bool enabled) { m_model.set_notifications(enabled); }

void simulation_port::request_device_reset(std::uint32_t device) { (void)m_model.reset_device(device); }

} // namespace neuron::sysfs
