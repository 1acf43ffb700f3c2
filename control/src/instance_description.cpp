#include "neuron/control/instance_description.h"

#include "neuron/model/spec/logical_cores.h"

#include <array>
#include <string_view>

namespace neuron::control {
namespace {

// nrt.h: NRT_INSTANCE_INF1 = 1, TRN1 = 2, TRN1N = 3, INF2 = 4, TRN2 = 5, ... TRN2U = 9.
std::uint32_t family_of(std::string_view name) {
    constexpr std::array<std::pair<std::string_view, std::uint32_t>, 6> families{
        {{"inf1.", 1}, {"trn1.", 2}, {"trn1n.", 3}, {"inf2.", 4}, {"trn2.", 5}, {"trn2u.", 9}}};
    for (const auto& [prefix, family] : families) {
        if (name.starts_with(prefix)) return family;
    }
    return 0;
}

// NRT_INSTANCE_SIZE_1XL = 0, 2XL, 4XL, 6XL, 8XL, 24XL, 32XL, 48XL, 3XL, UNKNOWN = 9.
std::uint32_t size_of(std::string_view name) {
    constexpr std::array<std::pair<std::string_view, std::uint32_t>, 9> sizes{{{".xlarge", 0},
                                                                               {".2xlarge", 1},
                                                                               {".4xlarge", 2},
                                                                               {".6xlarge", 3},
                                                                               {".8xlarge", 4},
                                                                               {".24xlarge", 5},
                                                                               {".32xlarge", 6},
                                                                               {".48xlarge", 7},
                                                                               {".3xlarge", 8}}};
    for (const auto& [suffix, size] : sizes) {
        if (name.ends_with(suffix)) return size;
    }
    return 9;
}

} // namespace

protocol::instance_description describe(const model::instance_type& instance) {
    const auto& spec = instance.spec();
    protocol::instance_description d;
    d.name = std::string(instance.name);
    d.family = family_of(instance.name);
    d.size = size_of(instance.name);
    // The runtime logs "architecture:TRN" / "INF" [inferred from its log lines].
    d.arch_name = instance.name.starts_with("inf") ? "INF" : "TRN";
    d.device_revision = std::string(spec.core_arch_suffix);
    d.device_name = std::string(spec.device_name);
    d.device_count = instance.device_count;
    d.physical_cores_per_device = spec.cores_per_device;
    d.default_lnc = model::default_lnc(instance);
    d.max_lnc = max_lnc(instance);
    d.device_memory_bytes = instance.device_memory_bytes();
    d.memory_regions = spec.memory_channels;
    return d;
}

} // namespace neuron::control
