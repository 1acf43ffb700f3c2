#include "neuron/model/spec/mem_type.h"

#include "neuron/model/spec/errors.h"

#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

namespace neuron::model {
namespace {

struct mem_type_row {
    std::string_view name;
    counter_kind counter;
};

using enum counter_kind;
constexpr std::array<mem_type_row, mem_type_count> rows{{
    {"unknown_host", host_uncategorized},
    {"code_host", host_dma_buffers},
    {"tensors_host", host_tensors},
    {"constants_host", host_constants},
    {"misc_host", host_application_memory},
    {"ncdev_host", host_driver_memory},
    {"notification_host", host_notifications},
    {"unknown_device", device_uncategorized},
    {"code_device", device_model_code},
    {"tensors_device", device_tensors},
    {"constants_device", device_constants},
    {"scratchpad_device", device_model_shared_scratchpad},
    {"misc_device", device_runtime_memory},
    {"ncdev_device", device_driver_memory},
    {"collectives_device", device_collectives},
    {"scratchpad_nonshared_device", device_nonshared_scratchpad},
    {"notification_device", device_notifications},
    {"dma_rings_host", host_dma_rings},
    {"dma_rings_device", device_dma_rings},
    {"contiguous_scratchpad_device", device_model_shared_scratchpad},
}};

} // namespace

std::string_view mem_type_name(mem_type type) { return rows[static_cast<std::uint32_t>(type)].name; }

mem_type parse_mem_type(std::string_view name) {
    std::vector<std::string_view> names;
    for (std::uint32_t i = 0; i < rows.size(); ++i) {
        if (rows[i].name == name) return static_cast<mem_type>(i);
        names.push_back(rows[i].name);
    }
    throw invalid_argument_error(fmt::format("unknown mem_type '{}'; valid types: {}", name, fmt::join(names, ", ")));
}

counter_kind category_counter(std::uint32_t raw_mem_type, mem_location where) {
    if (raw_mem_type < rows.size()) return rows[raw_mem_type].counter;
    return where == mem_location::host ? host_uncategorized : device_uncategorized;
}

} // namespace neuron::model
