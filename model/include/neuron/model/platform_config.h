#pragma once

#include "neuron/model/sim_clock.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace neuron::model {

struct platform_config {
    std::string instance = "trn1.2xlarge";
    time_mode mode = time_mode::stepped;
    double real_time_factor = 1.0; // simulated seconds per wall second (realtime mode)
    std::uint64_t seed = 0;        // serial numbers derive from it
    std::map<std::uint32_t, std::uint64_t> serial_overrides; // device -> serial
    // How long one reset takes. Not measured on hardware: the driver waits
    // for firmware, which takes on the order of a second.
    std::chrono::nanoseconds reset_duration = std::chrono::seconds(1);
    // Unix time of simulated time 0; default: the wall clock at start.
    std::optional<std::int64_t> start_epoch_ns;
};

// Throws invalid_argument_error / unknown_instance_error on a bad config.
void validate(const platform_config& config);

// A 64-bit serial number per device, deterministic in (seed, device), never
// one the driver would print as "\n" (zero or a 0xdeadbeef half).
std::uint64_t derive_serial(std::uint64_t seed, std::uint32_t device);

} // namespace neuron::model
