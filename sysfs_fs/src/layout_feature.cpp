#include "neuron/sysfs/layout_feature.h"

#include <array>

namespace neuron::sysfs {
namespace {

using f = layout_feature;
constexpr driver_version first{2, 7};

constexpr std::array features{
    layout_feature_info{f::metrics_directory, "metrics_directory", first, driver_version{2, 8}},
    layout_feature_info{f::bare_arch_type, "bare_arch_type", first, driver_version{2, 8}},
    layout_feature_info{f::refresh_rate, "refresh_rate", first, driver_version{2, 8}},
    layout_feature_info{f::dynamic_metrics, "dynamic_metrics", first, driver_version{2, 8}},
    layout_feature_info{f::infer_status_names, "infer_status_names", first, driver_version{2, 8}},
    layout_feature_info{f::single_reset_count, "single_reset_count", first, driver_version{2, 8}},
    layout_feature_info{f::architecture_info, "architecture_info", {2, 8}, {}},
    layout_feature_info{f::memory_peak, "memory_peak", {2, 8}, {}},
    layout_feature_info{f::split_reset_counts, "split_reset_counts", {2, 8}, {}},
    layout_feature_info{f::notify_delay, "notify_delay", {2, 9}, {}},
    layout_feature_info{f::memory_breakdown, "memory_breakdown", {2, 10}, {}},
    layout_feature_info{f::flop_count, "flop_count", {2, 12}, {}},
    layout_feature_info{f::connected_devices, "connected_devices", {2, 13}, {}},
    layout_feature_info{f::hardware_ecc, "hardware_ecc", {2, 14}, {}},
    layout_feature_info{f::serial_number, "serial_number", {2, 15}, {}},
    layout_feature_info{f::world_readable_metrics, "world_readable_metrics", {2, 15}, {}},
    layout_feature_info{f::inf2_core_arch_v2, "inf2_core_arch_v2", {2, 15}, {}},
    layout_feature_info{f::oob_error, "oob_error", {2, 16}, {}},
    layout_feature_info{f::trainium2, "trainium2", {2, 16}, {}},
    layout_feature_info{f::driver_memory_categories, "driver_memory_categories", {2, 17}, {}},
    layout_feature_info{f::dma_rings_category, "dma_rings_category", {2, 18}, {}},
    layout_feature_info{f::hw_status_errors, "hw_status_errors", {2, 19}, {}},
    layout_feature_info{f::hbm_ecc_all_channels, "hbm_ecc_all_channels", {2, 19}, {}},
    layout_feature_info{f::nq_overflow_status, "nq_overflow_status", {2, 20}, {}},
    layout_feature_info{f::sw_status_errors, "sw_status_errors", {2, 21}, {}},
    layout_feature_info{f::nc_time_in_use, "nc_time_in_use", {2, 21}, {}},
    layout_feature_info{f::power_utilization, "power_utilization", {2, 21}, {}},
    layout_feature_info{f::repairable_hbm, "repairable_hbm", {2, 23}, {}},
    layout_feature_info{f::pe_counters, "pe_counters", {2, 23}, {}},
    layout_feature_info{f::class_attributes, "class_attributes", {2, 23}, {}},
    layout_feature_info{f::inferentia1, "inferentia1", first, driver_version{2, 25}},
};

static_assert(
    [] {
        for (std::size_t i = 0; i < features.size(); ++i) {
            if (static_cast<std::size_t>(features[i].feature) != i) return false;
        }
        return true;
    }(),
    "the table is indexed by layout_feature");

} // namespace

std::span<const layout_feature_info> layout_features() { return features; }

const layout_feature_info& info_of(layout_feature feature) { return features[static_cast<std::size_t>(feature)]; }

bool has_feature(const driver_release& release, layout_feature feature) {
    const auto& info = info_of(feature);
    if (release.version < info.since) return false;
    return !info.removed_in || release.version < *info.removed_in;
}

} // namespace neuron::sysfs
