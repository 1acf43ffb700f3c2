#pragma once

#include <cstdint>

namespace neuron::model {

// Whether a runtime holds a device open: what a device reset asks before it
// starts (the driver refuses one on a device in use). The hardware asks it;
// the runtime's bookkeeping answers.
class device_openers {
public:
    virtual bool device_open(std::uint32_t device) const = 0;

protected:
    device_openers() = default;
    device_openers(const device_openers&) = default;
    device_openers& operator=(const device_openers&) = default;
    ~device_openers() = default;
};

} // namespace neuron::model
