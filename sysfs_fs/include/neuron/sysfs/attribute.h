#pragma once

#include "neuron/model/spec/counter.h"

#include <cstdint>

namespace neuron::sysfs {

// What a sysfs attribute file shows and does.
enum class attribute_kind : std::uint8_t {
    // Neuron driver metrics (neuron_sysfs_metrics.c): a store notifies the file itself.
    counter_field, // total / present / peak of one counter
    notify_delay,
    serial_number,
    arch_type,      // ND* on a device, NC* on a core
    bare_arch_type, // 2.7's metrics/arch_type
    instance_type,
    device_name,
    sram_ecc_uncorrected,
    mem_ecc_uncorrected,
    mem_ecc_repairable_uncorrected,
    power_utilization,
    pe_counters,
    refresh_rate, // 2.7
    // Neuron driver device attributes (neuron_cdev.c)
    reset,
    core_count,
    connected_devices,
    // Neuron driver class attributes
    class_node_id,
    class_server_id,
    class_ultraserver_mode,
    // The kernel's generic device files
    device_numbers, // dev
    uevent,
    pm_async,
    pm_autosuspend_delay_ms,
    pm_control,
    pm_runtime_active_kids,
    pm_runtime_active_time,
    pm_runtime_enabled,
    pm_runtime_status,
    pm_runtime_suspended_time,
    pm_runtime_usage,
    // The firmware's identity (drivers/firmware/dmi-id.c)
    dmi_field,  // one of dmi_files()
    dmi_uevent, // its directory's uevent
    // A recorded host's file the model does not produce: its recorded
    // contents (or read error), over time when it was sampled.
    recorded,
};

struct attribute_traits {
    bool has_store; // a write reaches the attribute; without one, opening for write is EACCES
    bool metric;    // a Neuron metric: a store notifies this file when notifications are on
};

attribute_traits traits_of(attribute_kind kind);

struct attribute {
    attribute_kind kind = attribute_kind::counter_field;
    std::uint32_t device = 0;
    std::int32_t core = model::counter_ref::device_level;
    model::counter_kind counter = model::counter_kind::success; // counter_field only
    model::counter_field field = model::counter_field::total;   // counter_field only
    std::uint32_t recorded = 0;                                 // recorded only: index in recorded_files
    std::uint32_t dmi_index = 0;                                // dmi kinds only: index in dmi_files()

    model::counter_ref counter_ref() const { return {device, core, counter}; }

    static attribute of(attribute_kind kind, std::uint32_t device,
                        std::int32_t core = model::counter_ref::device_level) {
        attribute a;
        a.kind = kind;
        a.device = device;
        a.core = core;
        return a;
    }
    static attribute of_dmi(attribute_kind kind, std::uint32_t index) {
        attribute a;
        a.kind = kind;
        a.dmi_index = index;
        return a;
    }
    static attribute of_recorded(std::uint32_t index) {
        attribute a;
        a.kind = attribute_kind::recorded;
        a.recorded = index;
        return a;
    }
    static attribute of_counter(const model::counter_ref& ref, model::counter_field field) {
        attribute a = of(attribute_kind::counter_field, ref.device, ref.core);
        a.counter = ref.kind;
        a.field = field;
        return a;
    }
};

} // namespace neuron::sysfs
