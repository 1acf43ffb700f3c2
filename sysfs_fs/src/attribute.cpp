#include "neuron/sysfs/attribute.h"

namespace neuron::sysfs {

attribute_traits traits_of(attribute_kind kind) {
    switch (kind) {
    case attribute_kind::counter_field:
    case attribute_kind::notify_delay:
    case attribute_kind::serial_number:
    case attribute_kind::arch_type:
    case attribute_kind::bare_arch_type:
    case attribute_kind::instance_type:
    case attribute_kind::device_name:
    case attribute_kind::sram_ecc_uncorrected:
    case attribute_kind::mem_ecc_uncorrected:
    case attribute_kind::mem_ecc_repairable_uncorrected:
    case attribute_kind::power_utilization:
    case attribute_kind::pe_counters:
    case attribute_kind::refresh_rate: return {true, true};
    case attribute_kind::reset:
    case attribute_kind::uevent:
    case attribute_kind::dmi_uevent:
    case attribute_kind::pm_async:
    case attribute_kind::pm_autosuspend_delay_ms:
    case attribute_kind::pm_control: return {true, false};
    case attribute_kind::core_count:
    case attribute_kind::connected_devices:
    case attribute_kind::class_node_id:
    case attribute_kind::class_server_id:
    case attribute_kind::class_ultraserver_mode:
    case attribute_kind::device_numbers:
    case attribute_kind::pm_runtime_active_kids:
    case attribute_kind::pm_runtime_active_time:
    case attribute_kind::pm_runtime_enabled:
    case attribute_kind::pm_runtime_status:
    case attribute_kind::pm_runtime_suspended_time:
    case attribute_kind::pm_runtime_usage:
    case attribute_kind::dmi_field:
    case attribute_kind::recorded: return {false, false};
    }
    return {false, false};
}

} // namespace neuron::sysfs
