#pragma once

#include "neuron/model/spec/device_spec.h"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace neuron::model {

class published_state;

// The driver samples device power every 50 ms (neuron_metrics.c).
inline constexpr std::uint64_t power_sample_period_ns = 50'000'000;

// stats/power/utilization: status, Unix seconds of the sample, and min/max/avg
// utilization in basis points (1/100 of a percent).
struct power_reading {
    std::string_view status;
    std::int64_t epoch_seconds = 0;
    std::uint32_t min_bp = 0;
    std::uint32_t max_bp = 0;
    std::uint32_t avg_bp = 0;
};

inline constexpr std::string_view power_status_no_data = "POWER_STATUS_NO_DATA";
inline constexpr std::string_view power_status_valid = "POWER_STATUS_VALID";

// One row of tensor_engine/pe_cntrs: cycle counters of a PE row group.
struct pe_row_reading {
    std::uint32_t row_group = 0;
    std::uint64_t matmul_active = 0;
    std::uint64_t weight_load_active = 0;
    std::uint64_t idle = 0;
};

// What a core's PE row groups have done, in picoseconds: the tensor engine's
// stretches that ended, and the one under way (from stretch_start_ps, for
// stretch_ps), which a reader counts in proportion to the time it has run.
// Weight loads run in the background of the matmuls: only matmuls keep a row
// group from being idle.
struct pe_timeline {
    std::array<std::uint64_t, pe_row_groups> matmul_ps{};
    std::array<std::uint64_t, pe_row_groups> weight_load_ps{};
    std::uint64_t stretch_start_ps = 0;
    std::uint64_t stretch_ps = 0;
    std::array<std::uint64_t, pe_row_groups> stretch_matmul_ps{};
    std::array<std::uint64_t, pe_row_groups> stretch_weight_load_ps{};
};

// A device's busy cores (those running an execution) over one power sample
// window, or the part of it seen so far.
struct occupancy_window {
    std::uint64_t core_ns = 0;    // busy cores x time
    std::uint64_t covered_ns = 0; // the part of the window accounted for
    std::uint64_t min = 0;        // fewest and most busy cores for a nonzero time
    std::uint64_t max = 0;
};

// A device's busy cores as the power samples need them: enough for a reader
// to work out the sample window before any later time.
struct occupancy_record {
    std::uint64_t changed_ns = 0; // when `busy` last changed
    std::uint64_t busy = 0;       // cores running since then
    std::uint64_t window = 0;     // the sample window holding changed_ns
    occupancy_window current;     // `window` up to changed_ns
    occupancy_window previous;    // window - 1, whole
};

// `r` after its busy cores became `busy` at `at_ns` (not before changed_ns).
occupancy_record occupancy_changed(occupancy_record r, std::uint64_t at_ns, std::uint64_t busy);

// Both are computed at read time from the published state and the simulated
// clock; any thread. Before the first power sample the driver has no data.
// Utilization is the share of the device's cores that ran an execution during
// the 50 ms before the last sample: its minimum, maximum and average. A PE
// row group is idle for every cycle its matmuls did not use.
power_reading read_utilization(const published_state& state, std::uint32_t device);
std::vector<pe_row_reading> read_pe_counters(const published_state& state, std::uint32_t device, std::uint32_t core);

} // namespace neuron::model
