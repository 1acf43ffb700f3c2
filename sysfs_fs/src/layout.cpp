#include "neuron/sysfs/layout.h"

#include "neuron/sysfs/driver_format.h"
#include "neuron/sysfs/errors.h"

#include <fmt/format.h>

namespace neuron::sysfs {
namespace {

using model::counter_group;
using model::counter_kind;
using model::device_kind;

// The release a counter first appeared in, when it is not one of 2.7's.
std::optional<layout_feature> introduced_by(counter_kind kind) {
    switch (kind) {
    case counter_kind::oob_error: return layout_feature::oob_error;
    case counter_kind::hw_collectives_error:
    case counter_kind::hw_hbm_ue_error:
    case counter_kind::hw_nc_ue_error:
    case counter_kind::hw_dma_abort_error: return layout_feature::hw_status_errors;
    case counter_kind::execute_sw_nq_overflow: return layout_feature::nq_overflow_status;
    case counter_kind::execute_sw_semaphore_error:
    case counter_kind::execute_sw_event_error:
    case counter_kind::execute_sw_psum_collision:
    case counter_kind::execute_sw_sequencer_fatal: return layout_feature::sw_status_errors;
    case counter_kind::hw_repairable_hbm_ue_error: return layout_feature::repairable_hbm;
    case counter_kind::reset_req_count:
    case counter_kind::reset_fail_count: return layout_feature::split_reset_counts;
    case counter_kind::reset_count: return layout_feature::single_reset_count;
    case counter_kind::flop_count: return layout_feature::flop_count;
    case counter_kind::nc_time_in_use: return layout_feature::nc_time_in_use;
    case counter_kind::device_model_code:
    case counter_kind::device_tensors:
    case counter_kind::device_constants:
    case counter_kind::device_model_shared_scratchpad:
    case counter_kind::device_runtime_memory:
    case counter_kind::host_dma_buffers:
    case counter_kind::host_tensors:
    case counter_kind::host_constants:
    case counter_kind::host_application_memory: return layout_feature::memory_breakdown;
    case counter_kind::device_driver_memory:
    case counter_kind::device_collectives:
    case counter_kind::device_nonshared_scratchpad:
    case counter_kind::device_notifications:
    case counter_kind::device_uncategorized:
    case counter_kind::host_driver_memory:
    case counter_kind::host_notifications:
    case counter_kind::host_uncategorized: return layout_feature::driver_memory_categories;
    case counter_kind::device_dma_rings:
    case counter_kind::host_dma_rings: return layout_feature::dma_rings_category;
    default: return std::nullopt;
    }
}

// 2.7 names that 2.8 renamed.
std::optional<std::string_view> name_before_2_8(counter_kind kind) {
    switch (kind) {
    case counter_kind::execute_completed_with_error: return "infer_completed_with_error";
    case counter_kind::execute_completed_with_num_error: return "infer_completed_with_num_error";
    case counter_kind::execute_failed_to_queue: return "infer_failed_to_queue";
    default: return std::nullopt;
    }
}

} // namespace

layout::layout(const model::instance_type& instance, const driver_release& release, std::uint32_t char_major)
        : m_instance(instance), m_release(release), m_char_major(char_major) {
    const auto kind = instance.kind;
    if (kind == device_kind::trainium2 && !has(layout_feature::trainium2)) {
        throw unsupported_combination_error(
            fmt::format("driver {} has no Trainium2 support (added in 2.16); {} needs driver 2.16 or later",
                        release.tag, instance.name));
    }
    if (kind == device_kind::inferentia && !has(layout_feature::inferentia1)) {
        throw unsupported_combination_error(
            fmt::format("driver {} dropped Inferentia (v1) support (removed in 2.25); {} needs driver 2.24 or earlier",
                        release.tag, instance.name));
    }
}

std::optional<std::string_view> layout::counter_directory(counter_kind kind) const {
    if (const auto feature = introduced_by(kind); feature && !has(*feature)) return std::nullopt;
    if (has(layout_feature::infer_status_names)) {
        if (const auto old = name_before_2_8(kind)) return old;
    }
    return model::info_of(kind).name;
}

bool layout::shows_peak(counter_kind kind) const {
    const auto group = model::info_of(kind).group;
    const bool memory = group == counter_group::memory_total || group == counter_group::device_category ||
                        group == counter_group::host_category;
    return memory && has(layout_feature::memory_peak);
}

std::uint32_t layout::metric_mode() const { return has(layout_feature::world_readable_metrics) ? 0644 : 0600; }

bool layout::has_hardware_ecc() const {
    return has(layout_feature::hardware_ecc) && m_instance.spec().has_ecc_reporting;
}

model::ecc_reading layout::ecc_reading() const {
    // Before 2.19 the driver summed the first two channels (all a v2 device
    // has); the repair state split the count from 2.23 (driver-sysfs.md §1, §6).
    return {has(layout_feature::hbm_ecc_all_channels) ? UINT32_MAX : 2u, has(layout_feature::repairable_hbm)};
}

std::optional<std::chrono::nanoseconds> layout::category_poll_period() const {
    // The categories came with a 1 s polling kthread in 2.10; 2.17 moved them
    // into the mempool, counted per allocation (driver-sysfs.md §1).
    if (has(layout_feature::memory_breakdown) && !has(layout_feature::driver_memory_categories)) {
        return std::chrono::seconds(1);
    }
    return std::nullopt;
}

bool layout::has_serial_number() const {
    return has(layout_feature::serial_number) && m_instance.spec().has_serial_number;
}

bool layout::has_pe_counters() const { return has(layout_feature::pe_counters) && m_instance.spec().pe_row_groups > 0; }

std::string layout::device_arch_type() const { return format_arch_type(true, m_instance.spec().device_arch_suffix); }

std::string layout::core_arch_type() const {
    if (m_instance.kind == device_kind::inferentia2 && !has(layout_feature::inf2_core_arch_v2)) {
        return format_arch_type(false, "v3");
    }
    return format_arch_type(false, m_instance.spec().core_arch_suffix);
}

std::string layout::bare_arch_type() const {
    // 2.7 named the hardware generation: Inf1 v1, Trn1 v2, Inf2 v3.
    switch (m_instance.kind) {
    case device_kind::inferentia: return "v1\n";
    case device_kind::trainium: return "v2\n";
    default: return "v3\n";
    }
}

} // namespace neuron::sysfs
