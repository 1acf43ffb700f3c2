#pragma once

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

// Both are computed at read time from the published state and the simulated
// clock; any thread. Before the first power sample the driver has no data.
// Until engines run, a device is idle: 0.00 utilization, and every core cycle
// since the model started counts as idle.
power_reading read_utilization(const published_state& state, std::uint32_t device);
std::vector<pe_row_reading> read_pe_counters(const published_state& state, std::uint32_t device,
                                             std::uint32_t core);

} // namespace neuron::model
