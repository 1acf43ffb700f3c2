#pragma once

#include "neuron/model/runtime/api.h"
#include "neuron/model/spec/counter.h"

#include <cstdint>

namespace neuron::model {
class simulation;
}

namespace neuron::sysfs {

// What a sysfs store asks of the model. Each call returns once the model has
// applied it, so a read right after the write sees the effect (the driver
// applies these synchronously too).
class model_port {
public:
    virtual ~model_port() = default;
    virtual void clear_counter(const model::counter_ref& counter, model::counter_field field) = 0;
    virtual void set_notifications(bool enabled) = 0;
    // neuronN/reset: starts a device reset unless the device is open.
    virtual void request_device_reset(std::uint32_t device) = 0;
};

// The port onto a running simulation, through the model's API.
class simulation_port : public model_port {
public:
    explicit simulation_port(model::simulation& sim) : m_model(sim) {}
    void clear_counter(const model::counter_ref& counter, model::counter_field field) override;
    void set_notifications(bool enabled) override;
    void request_device_reset(std::uint32_t device) override;

private:
    model::api m_model;
};

} // namespace neuron::sysfs
