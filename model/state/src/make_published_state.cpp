#include "neuron/model/state/make_published_state.h"

#include <chrono>

namespace neuron::model {
namespace {

std::vector<std::uint64_t> serial_numbers(const platform_config& config, std::uint32_t devices) {
    std::vector<std::uint64_t> serials;
    for (std::uint32_t d = 0; d < devices; ++d) {
        auto it = config.serial_overrides.find(d);
        serials.push_back(it != config.serial_overrides.end() ? it->second : derive_serial(config.seed, d));
    }
    return serials;
}

std::int64_t start_epoch(const platform_config& config) {
    if (config.start_epoch_ns) return *config.start_epoch_ns;
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

} // namespace

std::unique_ptr<published_state> make_published_state(const platform_config& config) {
    validate(config);
    const auto& type = find_instance_type(config.instance);
    return std::make_unique<published_state>(type, serial_numbers(config, type.device_count), config.mode,
                                             config.real_time_factor, start_epoch(config));
}

} // namespace neuron::model
