#include "neuron/sysfs/attribute_reader.h"

#include "neuron/model/spec/topology.h"
#include "neuron/model/state/activity.h"
#include "neuron/model/state/ecc.h"
#include "neuron/model/state/published_state.h"
#include "neuron/sysfs/dmi_identity.h"
#include "neuron/sysfs/driver_format.h"

#include <fmt/format.h>

#include <cerrno>

namespace neuron::sysfs {

attribute_reader::attribute_reader(const layout& layout, const model::published_state& state,
                                   const generic_device_state& generic, const recorded_files* recorded)
        : m_layout(layout), m_state(state), m_generic(generic), m_recorded(recorded) {}

read_result attribute_reader::read(const attribute& attr) const {
    // The kernel's autosuspend_delay_ms show() fails for devices that do not
    // use autosuspend, which the Neuron devices never enable.
    if (attr.kind == attribute_kind::pm_autosuspend_delay_ms) return {EIO, {}};
    if (attr.kind == attribute_kind::recorded) {
        if (m_recorded == nullptr) return {EIO, {}};
        auto [error, text] = m_recorded->read(attr.recorded, m_state.clock().now_ns());
        return {error, std::move(text)};
    }
    return {0, show(attr)};
}

model::ecc_readout attribute_reader::ecc(const attribute& attr) const {
    return model::read_ecc(m_state, attr.device, m_layout.ecc_reading());
}

std::string attribute_reader::show(const attribute& attr) const {
    using k = attribute_kind;
    const auto& spec = m_layout.instance().spec();
    const bool device_level = attr.core == model::counter_ref::device_level;
    switch (attr.kind) {
    case k::counter_field: return format_counter(m_state.counter(attr.counter_ref(), attr.field));
    case k::notify_delay: return format_notify_delay(m_state.notifications_enabled());
    case k::serial_number: return format_serial_number(m_state.serial_number(attr.device));
    case k::arch_type: return device_level ? m_layout.device_arch_type() : m_layout.core_arch_type();
    case k::bare_arch_type: return m_layout.bare_arch_type();
    case k::instance_type: return format_string_line(spec.instance_type);
    case k::device_name: return format_string_line(spec.device_name);
    case k::sram_ecc_uncorrected: return format_ecc_count(ecc(attr).sram_ecc_uncorrected);
    case k::mem_ecc_uncorrected: return format_ecc_count(ecc(attr).mem_ecc_uncorrected);
    case k::mem_ecc_repairable_uncorrected: return format_ecc_count(ecc(attr).mem_ecc_repairable_uncorrected);
    case k::power_utilization: return format_utilization(model::read_utilization(m_state, attr.device));
    case k::pe_counters:
        return format_pe_counters(model::read_pe_counters(m_state, attr.device, static_cast<std::uint32_t>(attr.core)));
    case k::refresh_rate: return fmt::format("{}\n", m_generic.refresh_rate_ms());
    case k::reset: return format_device_state(m_state.reset_state(attr.device));
    case k::core_count: return format_core_count(spec.cores_per_device);
    case k::connected_devices:
        return format_connected_devices(
            model::connected_devices(m_layout.instance().kind, m_layout.instance().device_count, attr.device));
    // Hosts outside an UltraServer (neuron_pelect.c computes these only in a pod).
    case k::class_node_id: return "-1\n";
    case k::class_server_id: return "0000000000000000\n";
    case k::class_ultraserver_mode: return "\n";
    case k::device_numbers: return fmt::format("{}:{}\n", m_layout.char_major(), attr.device);
    case k::uevent:
        return fmt::format("MAJOR={}\nMINOR={}\nDEVNAME=neuron{}\n", m_layout.char_major(), attr.device, attr.device);
    case k::dmi_field:
    case k::dmi_uevent: return dmi_text(attr.dmi_index, model::identity_of(m_state));
    default: return show_power_management(attr);
    }
}

// drivers/base/power/sysfs.c for a device whose runtime PM was never enabled.
std::string attribute_reader::show_power_management(const attribute& attr) const {
    using k = attribute_kind;
    const bool allowed = m_generic.runtime_pm_allowed(attr.device);
    switch (attr.kind) {
    case k::pm_async: return m_generic.async_suspend(attr.device) ? "enabled\n" : "disabled\n";
    case k::pm_control: return allowed ? "auto\n" : "on\n";
    case k::pm_runtime_active_kids: return "0\n";
    case k::pm_runtime_active_time: return "0\n";
    case k::pm_runtime_enabled: return allowed ? "disabled\n" : "disabled & forbidden\n";
    case k::pm_runtime_status: return "unsupported\n";
    case k::pm_runtime_suspended_time: return "0\n";
    case k::pm_runtime_usage: return allowed ? "0\n" : "1\n"; // forbidding takes a usage reference
    default: return {};
    }
}

} // namespace neuron::sysfs
