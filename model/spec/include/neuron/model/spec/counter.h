#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace neuron::model {

// Every metric counter the driver keeps (driver-sysfs.md §1, §3, §8). The
// driver keeps each of them once per device and once per core; which of those
// are visible as sysfs files is the sysfs layer's business.
enum class counter_kind : std::uint8_t {
    // stats/status/
    success,
    failure,
    invalid_error,
    resource_error,
    timeout,
    hw_error,
    execute_failed_to_queue,
    resource_nc_error,
    unsupported_neff_version,
    exec_bad_input,
    execute_completed_with_num_error,
    execute_completed_with_error,
    oob_error,
    generic_error,
    hw_collectives_error,
    hw_hbm_ue_error,
    hw_nc_ue_error,
    hw_dma_abort_error,
    execute_sw_nq_overflow,
    execute_sw_semaphore_error,
    execute_sw_event_error,
    execute_sw_psum_collision,
    execute_sw_sequencer_fatal,
    hw_repairable_hbm_ue_error,
    // stats/other_info/
    model_load_count,
    reset_req_count,
    reset_fail_count,
    inference_count,
    flop_count,
    nc_time_in_use,
    reset_count, // 2.7's: +1 on every core of the device for each reset request, whatever it names
    // stats/memory_usage/: per-core totals
    host_mem,
    device_mem,
    // device_mem/<category>
    device_model_code,
    device_tensors,
    device_constants,
    device_model_shared_scratchpad,
    device_runtime_memory,
    device_driver_memory,
    device_collectives,
    device_nonshared_scratchpad,
    device_notifications,
    device_dma_rings,
    device_uncategorized,
    // host_mem/<category>
    host_dma_buffers,
    host_tensors,
    host_constants,
    host_application_memory,
    host_driver_memory,
    host_notifications,
    host_dma_rings,
    host_uncategorized,
};

inline constexpr std::size_t counter_kind_count = static_cast<std::size_t>(counter_kind::host_uncategorized) + 1;

enum class counter_group : std::uint8_t {
    status,
    other_info,
    memory_total,    // memory_usage/host_mem, memory_usage/device_mem
    device_category, // memory_usage/device_mem/<name>
    host_category,   // memory_usage/host_mem/<name>
};

struct counter_info {
    counter_kind kind;
    std::string_view name; // the directory name in sysfs
    counter_group group;
};

const counter_info& info_of(counter_kind kind);
std::span<const counter_info> all_counters();
std::span<const counter_info> counters_in(counter_group group);

enum class counter_field : std::uint8_t { total, present, peak };
inline constexpr std::size_t counter_field_count = 3;
std::string_view field_name(counter_field field);

// A set of fields; the driver notifies exactly the fields an update touched.
class field_mask {
public:
    constexpr field_mask() = default;
    constexpr field_mask(counter_field f) : m_bits(bit(f)) {}
    constexpr field_mask operator|(field_mask o) const { return from_bits(m_bits | o.m_bits); }
    constexpr bool contains(counter_field f) const { return (m_bits & bit(f)) != 0; }
    constexpr bool empty() const { return m_bits == 0; }
    constexpr bool operator==(const field_mask&) const = default;

private:
    static constexpr std::uint8_t bit(counter_field f) {
        return static_cast<std::uint8_t>(1u << static_cast<unsigned>(f));
    }
    static constexpr field_mask from_bits(std::uint8_t bits) {
        field_mask m;
        m.m_bits = bits;
        return m;
    }
    std::uint8_t m_bits = 0;
};

// One counter instance: a device-level counter (core == device_level) or a
// per-core one.
struct counter_ref {
    static constexpr std::int32_t device_level = -1;

    std::uint32_t device = 0;
    std::int32_t core = device_level;
    counter_kind kind = counter_kind::success;

    static constexpr counter_ref of_device(std::uint32_t device, counter_kind kind) {
        return {device, device_level, kind};
    }
    static constexpr counter_ref of_core(std::uint32_t device, std::uint32_t core, counter_kind kind) {
        return {device, static_cast<std::int32_t>(core), kind};
    }
    constexpr auto operator<=>(const counter_ref&) const = default;
};

// One field of one counter changing at a simulated instant: how a recorded
// host's counters (their values when recorded, then how its samples moved
// them) come back on the model's clock (counter_script.h plays them).
inline constexpr std::uint64_t max_scripted_at_ns =
    std::uint64_t{180} * 24 * 3600 * 1'000'000'000; // within SystemC's 213 days
enum class script_action : std::uint8_t {
    set, // the field takes the value
    add, // the field grows by the value (u64 wrap: a "negative" change shrinks it)
};
struct scripted_counter_value {
    std::uint64_t at_ns = 0;
    counter_ref counter;
    counter_field field = counter_field::total;
    std::uint64_t value = 0;
    script_action action = script_action::set;
    bool operator==(const scripted_counter_value&) const = default;
};

struct counter_value {
    std::uint64_t total = 0;
    std::uint64_t present = 0;
    std::uint64_t peak = 0;
    constexpr bool operator==(const counter_value&) const = default;
};

} // namespace neuron::model
