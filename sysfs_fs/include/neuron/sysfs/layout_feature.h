#pragma once

#include "neuron/sysfs/driver_release.h"

#include <optional>
#include <span>
#include <string_view>

namespace neuron::sysfs {

// One change to the driver's sysfs tree, with the release that brought it
// and, for what was later removed, the release that dropped it
// (driver-sysfs.md §1 "Version history of the tree"). The tree of any
// release is derived from this table.
enum class layout_feature : std::uint8_t {
    metrics_directory,  // everything under neuronN/metrics/; per-core dirs without stats/
    bare_arch_type,     // metrics/arch_type reads "v1".."v3"
    refresh_rate,       // metrics/refresh_rate
    dynamic_metrics,    // neuron_coreK/dynamic_metrics/ (empty)
    infer_status_names, // infer_* instead of execute_*
    single_reset_count, // other_info/reset_count
    architecture_info,  // info/architecture/*, per-core info/architecture/arch_type
    memory_peak,        // `peak` beside total/present on memory counters
    split_reset_counts, // reset_req_count + reset_fail_count
    notify_delay,       // info/notify_delay and sysfs_notify
    memory_breakdown,   // first host_mem/ and device_mem/ categories
    flop_count,
    connected_devices,
    hardware_ecc,           // stats/hardware/{sram,mem}_ecc_uncorrected
    serial_number,          // info/serial_number (not on Inf1)
    world_readable_metrics, // metric files 0644 instead of 0600
    inf2_core_arch_v2,      // Inf2 cores read NCv2 (NCv3 before)
    oob_error,
    trainium2,                // the v3 hardware layer
    driver_memory_categories, // driver_memory, collectives, nonshared_scratchpad, notifications, uncategorized
    dma_rings_category,
    hw_status_errors,     // hw_collectives/hbm_ue/nc_ue/dma_abort_error
    hbm_ecc_all_channels, // mem_ecc_uncorrected sums every HBM channel (the first two before)
    nq_overflow_status,   // execute_sw_nq_overflow
    sw_status_errors,     // execute_sw_{semaphore,event}_error, _psum_collision, _sequencer_fatal
    nc_time_in_use,
    power_utilization, // stats/power/utilization
    repairable_hbm,    // hw_repairable_hbm_ue_error, hardware/mem_ecc_repairable_uncorrected
    pe_counters,       // neuron_coreK/stats/tensor_engine/pe_cntrs
    class_attributes,  // /sys/class/neuron_device/{node_id_*,server_id_*,ultraserver_mode}
    inferentia1,       // the v1 hardware layer (removed in 2.25)
};

struct layout_feature_info {
    layout_feature feature;
    std::string_view name;
    driver_version since;
    std::optional<driver_version> removed_in;
};

std::span<const layout_feature_info> layout_features();
const layout_feature_info& info_of(layout_feature feature);
bool has_feature(const driver_release& release, layout_feature feature);

} // namespace neuron::sysfs
