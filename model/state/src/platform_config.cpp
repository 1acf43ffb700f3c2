#include "neuron/model/state/platform_config.h"

#include "neuron/model/spec/ecc_register.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/instance_catalogue.h"

#include <cmath>
#include <fmt/format.h>

namespace neuron::model {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

bool prints_empty(std::uint64_t serial) {
    return serial == 0 || (serial & 0xffffffffu) == register_read_failure || (serial >> 32) == register_read_failure;
}

} // namespace

void validate(const platform_config& config) {
    const auto& type = find_instance_type(config.instance);
    if (!std::isfinite(config.real_time_factor) || config.real_time_factor <= 0) {
        throw invalid_argument_error(
            fmt::format("real-time factor {} invalid: must be a positive number", config.real_time_factor));
    }
    if (config.category_poll_period && config.category_poll_period->count() <= 0) {
        throw invalid_argument_error("the category poll period must be positive");
    }
    for (const auto& [device, serial] : config.serial_overrides) {
        if (device >= type.device_count) {
            throw invalid_argument_error(fmt::format("serial number for device {}: {} has devices 0..{}", device,
                                                     type.name, type.device_count - 1));
        }
    }
    static const std::vector<scripted_counter_value> no_script;
    for (const auto& v : config.counter_script ? *config.counter_script : no_script) {
        const auto& c = v.counter;
        const bool core_ok = c.core == counter_ref::device_level ||
                             (c.core >= 0 && static_cast<std::uint32_t>(c.core) < type.spec().cores_per_device);
        if (v.at_ns > max_scripted_at_ns) {
            throw invalid_argument_error(fmt::format("scripted counter value at {} ns: the clock reaches at most {} ns",
                                                     v.at_ns, max_scripted_at_ns));
        }
        if (c.device >= type.device_count || !core_ok || static_cast<std::size_t>(c.kind) >= counter_kind_count) {
            throw invalid_argument_error(
                fmt::format("scripted counter on device {} core {}: {} has devices 0..{} of {} cores", c.device, c.core,
                            type.name, type.device_count - 1, type.spec().cores_per_device));
        }
    }
    if (config.reset_duration.count() < 0) {
        throw invalid_argument_error("reset duration must not be negative");
    }
}

std::uint64_t derive_serial(std::uint64_t seed, std::uint32_t device) {
    std::uint64_t serial = splitmix64(seed ^ splitmix64(device));
    while (prints_empty(serial)) serial = splitmix64(serial);
    return serial;
}

} // namespace neuron::model
