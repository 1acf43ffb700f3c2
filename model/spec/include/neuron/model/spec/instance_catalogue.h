#pragma once

#include "neuron/model/spec/device_spec.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace neuron::model {

// One EC2 instance type with Neuron devices (nrt-api.md §6, driver-sysfs.md §7).
struct instance_type {
    std::string_view name;
    device_kind kind;
    std::uint32_t device_count;

    const device_spec& spec() const { return spec_of(kind); }
    std::uint32_t cores_per_device() const { return spec().cores_per_device; }
    std::uint32_t total_cores() const { return device_count * cores_per_device(); }
    std::uint64_t device_memory_bytes() const { return spec().memory_bytes(); }
};

std::span<const instance_type> instance_catalogue();

// Throws unknown_instance_error naming the valid types.
const instance_type& find_instance_type(std::string_view name);

} // namespace neuron::model
