#pragma once

#include "neuron/model/spec/counter.h"
#include "neuron/runtime_api/nrt_status_table.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::model {

// NRT_STATUS values the model produces or counts: the one status table's
// (neuron/runtime_api/nrt_status_table.h, nrt-api.md §1).
namespace nrt_status = runtime_api::nrt_status;

// The status/ directory an NRT_STATUS is counted in (driver-sysfs.md §8);
// nothing for statuses without one (3, 11, 13, 14, 15, 101, 1005, 1100, 1206).
std::optional<counter_kind> status_counter(std::uint32_t status);

// "NRT_EXEC_HW_ERR_HBM_UE" for 1201, nothing for an unknown value.
std::optional<std::string_view> status_name(std::uint32_t status);
std::optional<std::uint32_t> status_from_name(std::string_view name);

} // namespace neuron::model
