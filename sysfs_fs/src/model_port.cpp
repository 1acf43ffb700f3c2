#include "neuron/sysfs/model_port.h"

#include "neuron/model/platform.h"
#include "neuron/model/simulation.h"

namespace neuron::sysfs {

void simulation_port::clear_counter(const model::counter_ref& counter, model::counter_field field) {
    m_sim.call([counter, field](model::platform& p) { p.counters().clear(counter, field); });
}

void simulation_port::set_notifications(bool enabled) {
    m_sim.call([enabled](model::platform& p) { p.notifications().set_enabled(enabled); });
}

void simulation_port::request_device_reset(std::uint32_t device) {
    m_sim.call([device](model::platform& p) { p.device(device).resets().request_device_reset(); });
}

} // namespace neuron::sysfs
