#pragma once

#include "neuron/model/spec/counter.h"

#include <cstdint>
#include <string_view>

namespace neuron::model {

// The driver's mem_alloc_category_t (driver-sysfs.md §3, "memory counters").
enum class mem_type : std::uint32_t {
    unknown_host = 0,
    code_host = 1,
    tensors_host = 2,
    constants_host = 3,
    misc_host = 4,
    ncdev_host = 5,
    notification_host = 6,
    unknown_device = 7,
    code_device = 8,
    tensors_device = 9,
    constants_device = 10,
    scratchpad_device = 11,
    misc_device = 12,
    ncdev_device = 13,
    collectives_device = 14,
    scratchpad_nonshared_device = 15,
    notification_device = 16,
    dma_rings_host = 17,
    dma_rings_device = 18,
    contiguous_scratchpad_device = 19,
};
inline constexpr std::uint32_t mem_type_count = 20;

// Where an allocation lives: the ioctl's host_memory flag, independent of mem_type.
enum class mem_location : std::uint8_t { host, device };

std::string_view mem_type_name(mem_type type);
// Throws invalid_argument_error naming the value and the valid names.
mem_type parse_mem_type(std::string_view name);

// The category counter an allocation of this raw mem_type feeds
// (mem_alloc_type_to_sysfs_counter). Values out of range fall back to the
// uncategorized counter of the allocation's location.
counter_kind category_counter(std::uint32_t raw_mem_type, mem_location where);

} // namespace neuron::model
