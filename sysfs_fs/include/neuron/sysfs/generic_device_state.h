#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace neuron::sysfs {

// Settings a write can change that live outside the Neuron model: each
// device's runtime-PM switches (power/control, power/async) and 2.7's
// metrics refresh_rate. Any thread may read; writes come from the thread
// serving sysfs writes.
class generic_device_state {
public:
    explicit generic_device_state(std::uint32_t devices);

    bool runtime_pm_allowed(std::uint32_t device) const; // power/control "auto" (default) vs "on"
    void set_runtime_pm_allowed(std::uint32_t device, bool allowed);
    bool async_suspend(std::uint32_t device) const; // power/async, "disabled" by default
    void set_async_suspend(std::uint32_t device, bool enabled);

    std::uint32_t refresh_rate_ms() const { return m_refresh_rate.load(std::memory_order_relaxed); }
    void set_refresh_rate_ms(std::uint32_t ms) { m_refresh_rate.store(ms, std::memory_order_relaxed); }

    static constexpr std::uint32_t default_refresh_rate_ms = 150000;
    static constexpr std::uint32_t minimum_refresh_rate_ms = 1000;

private:
    std::uint32_t m_devices;
    std::unique_ptr<std::atomic<bool>[]> m_pm_allowed;
    std::unique_ptr<std::atomic<bool>[]> m_async;
    std::atomic<std::uint32_t> m_refresh_rate{default_refresh_rate_ms};
};

} // namespace neuron::sysfs
