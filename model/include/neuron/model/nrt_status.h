#pragma once

#include "neuron/model/counter.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::model {

// NRT_STATUS values the model produces or counts (nrt-api.md §1).
namespace nrt_status {
inline constexpr std::uint32_t success = 0;
inline constexpr std::uint32_t failure = 1;
inline constexpr std::uint32_t invalid = 2;
inline constexpr std::uint32_t resource = 4;
inline constexpr std::uint32_t timeout = 5;
inline constexpr std::uint32_t hw_error = 6;
inline constexpr std::uint32_t load_not_enough_nc = 9;
inline constexpr std::uint32_t closed = 14;
inline constexpr std::uint32_t exec_completed_with_err = 1004;
inline constexpr std::uint32_t exec_hw_err_hbm_ue = 1201;
inline constexpr std::uint32_t exec_hw_err_nc_ue = 1202;
inline constexpr std::uint32_t exec_hw_err_repairable_hbm_ue = 1205;
} // namespace nrt_status

// The status/ directory an NRT_STATUS is counted in (driver-sysfs.md §8);
// nothing for statuses without one (3, 11, 13, 14, 15, 101, 1005, 1100, 1206).
std::optional<counter_kind> status_counter(std::uint32_t status);

// "NRT_EXEC_HW_ERR_HBM_UE" for 1201, nothing for an unknown value.
std::optional<std::string_view> status_name(std::uint32_t status);
std::optional<std::uint32_t> status_from_name(std::string_view name);

} // namespace neuron::model
