#include "neuron/sysfs/generic_device_state.h"

#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

namespace neuron::sysfs {
namespace {

void check(std::uint32_t device, std::uint32_t devices) {
    if (device >= devices) throw model::invalid_argument_error(fmt::format("device {} out of range", device));
}

} // namespace

generic_device_state::generic_device_state(std::uint32_t devices)
        : m_devices(devices), m_pm_allowed(std::make_unique<std::atomic<bool>[]>(devices)),
          m_async(std::make_unique<std::atomic<bool>[]>(devices)) {
    for (std::uint32_t d = 0; d < devices; ++d) {
        m_pm_allowed[d].store(true, std::memory_order_relaxed);
        m_async[d].store(false, std::memory_order_relaxed);
    }
}

bool generic_device_state::runtime_pm_allowed(std::uint32_t device) const {
    check(device, m_devices);
    return m_pm_allowed[device].load(std::memory_order_relaxed);
}

void generic_device_state::set_runtime_pm_allowed(std::uint32_t device, bool allowed) {
    check(device, m_devices);
    m_pm_allowed[device].store(allowed, std::memory_order_relaxed);
}

bool generic_device_state::async_suspend(std::uint32_t device) const {
    check(device, m_devices);
    return m_async[device].load(std::memory_order_relaxed);
}

void generic_device_state::set_async_suspend(std::uint32_t device, bool enabled) {
    check(device, m_devices);
    m_async[device].store(enabled, std::memory_order_relaxed);
}

} // namespace neuron::sysfs
