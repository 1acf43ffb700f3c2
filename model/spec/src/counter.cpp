#include "neuron/model/spec/counter.h"

#include <array>

namespace neuron::model {
namespace {

using enum counter_kind;
using g = counter_group;

// Ordered as the enum, so a kind indexes its own row.
constexpr std::array<counter_info, counter_kind_count> table{{
    {success, "success", g::status},
    {failure, "failure", g::status},
    {invalid_error, "invalid_error", g::status},
    {resource_error, "resource_error", g::status},
    {timeout, "timeout", g::status},
    {hw_error, "hw_error", g::status},
    {execute_failed_to_queue, "execute_failed_to_queue", g::status},
    {resource_nc_error, "resource_nc_error", g::status},
    {unsupported_neff_version, "unsupported_neff_version", g::status},
    {exec_bad_input, "exec_bad_input", g::status},
    {execute_completed_with_num_error, "execute_completed_with_num_error", g::status},
    {execute_completed_with_error, "execute_completed_with_error", g::status},
    {oob_error, "oob_error", g::status},
    {generic_error, "generic_error", g::status},
    {hw_collectives_error, "hw_collectives_error", g::status},
    {hw_hbm_ue_error, "hw_hbm_ue_error", g::status},
    {hw_nc_ue_error, "hw_nc_ue_error", g::status},
    {hw_dma_abort_error, "hw_dma_abort_error", g::status},
    {execute_sw_nq_overflow, "execute_sw_nq_overflow", g::status},
    {execute_sw_semaphore_error, "execute_sw_semaphore_error", g::status},
    {execute_sw_event_error, "execute_sw_event_error", g::status},
    {execute_sw_psum_collision, "execute_sw_psum_collision", g::status},
    {execute_sw_sequencer_fatal, "execute_sw_sequencer_fatal", g::status},
    {hw_repairable_hbm_ue_error, "hw_repairable_hbm_ue_error", g::status},
    {model_load_count, "model_load_count", g::other_info},
    {reset_req_count, "reset_req_count", g::other_info},
    {reset_fail_count, "reset_fail_count", g::other_info},
    {inference_count, "inference_count", g::other_info},
    {flop_count, "flop_count", g::other_info},
    {nc_time_in_use, "nc_time_in_use", g::other_info},
    {reset_count, "reset_count", g::other_info},
    {host_mem, "host_mem", g::memory_total},
    {device_mem, "device_mem", g::memory_total},
    {device_model_code, "model_code", g::device_category},
    {device_tensors, "tensors", g::device_category},
    {device_constants, "constants", g::device_category},
    {device_model_shared_scratchpad, "model_shared_scratchpad", g::device_category},
    {device_runtime_memory, "runtime_memory", g::device_category},
    {device_driver_memory, "driver_memory", g::device_category},
    {device_collectives, "collectives", g::device_category},
    {device_nonshared_scratchpad, "nonshared_scratchpad", g::device_category},
    {device_notifications, "notifications", g::device_category},
    {device_dma_rings, "dma_rings", g::device_category},
    {device_uncategorized, "uncategorized", g::device_category},
    {host_dma_buffers, "dma_buffers", g::host_category},
    {host_tensors, "tensors", g::host_category},
    {host_constants, "constants", g::host_category},
    {host_application_memory, "application_memory", g::host_category},
    {host_driver_memory, "driver_memory", g::host_category},
    {host_notifications, "notifications", g::host_category},
    {host_dma_rings, "dma_rings", g::host_category},
    {host_uncategorized, "uncategorized", g::host_category},
}};

constexpr bool table_matches_enum() {
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (static_cast<std::size_t>(table[i].kind) != i) return false;
    }
    return true;
}
static_assert(table_matches_enum());

} // namespace

const counter_info& info_of(counter_kind kind) { return table[static_cast<std::size_t>(kind)]; }

std::span<const counter_info> all_counters() { return table; }

std::span<const counter_info> counters_in(counter_group group) {
    // Groups are contiguous in the table.
    std::size_t first = table.size();
    std::size_t last = 0;
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (table[i].group != group) continue;
        if (first == table.size()) first = i;
        last = i + 1;
    }
    if (first == table.size()) return {};
    return std::span<const counter_info>(table).subspan(first, last - first);
}

std::string_view field_name(counter_field field) {
    switch (field) {
    case counter_field::total: return "total";
    case counter_field::present: return "present";
    case counter_field::peak: return "peak";
    }
    return "unknown";
}

} // namespace neuron::model
