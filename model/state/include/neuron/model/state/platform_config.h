#pragma once

#include "neuron/model/spec/counter.h"
#include "neuron/model/state/sim_clock.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neuron::model {

// The real-time factors a served instance accepts (`--rtf`). SystemC's time
// ends at 2^64-1 of its 1 ps resolution, about 213.5 days of simulated time
// (see simulation.h), where a realtime simulation ends with an error: at the
// largest factor after 21 days of serving, out of reach of any CI job or
// working session. Below the smallest, a 1 s reset would take longer than a
// quarter of an hour: use stepped time instead. The model itself accepts any
// positive factor (its tests reach the limit in a blink).
inline constexpr double min_real_time_factor = 0.001;
inline constexpr double max_real_time_factor = 10.0;

struct platform_config {
    std::string instance = "trn1.2xlarge";
    time_mode mode = time_mode::stepped;
    double real_time_factor = 1.0;                           // simulated seconds per wall second (realtime mode)
    std::uint64_t seed = 0;                                  // serial numbers derive from it
    std::map<std::uint32_t, std::uint64_t> serial_overrides; // device -> serial
    // How long one reset takes. Not measured on hardware: the driver waits
    // for firmware, which takes on the order of a second.
    std::chrono::nanoseconds reset_duration = std::chrono::seconds(1);
    // Unix time of simulated time 0; default: the wall clock at start.
    std::optional<std::int64_t> start_epoch_ns;
    // Drivers 2.10 to 2.16 set the memory category counters from the
    // runtime's datastore once a second (category_poller.h); none: per
    // allocation, as from 2.17.
    std::optional<std::chrono::nanoseconds> category_poll_period;
    // Counter values set at given instants (a recorded host replayed):
    // shared, so that a copy of the configuration does not copy the
    // millions of changes a long recording may hold.
    std::shared_ptr<const std::vector<scripted_counter_value>> counter_script;
    // Every execution pays its generation's fixed cost before its engines
    // start and after they end (core_costs.h). Ours: false leaves it out,
    // so that what an execution shows is its engines' and DMA's work alone
    // (the model's tests of those mechanisms use it).
    bool execution_overhead = true;
    // trn2's Tensor engine runs under its current limit (core_costs.h);
    // false runs it at full speed always, for the same tests.
    bool tensor_throttle = true;
};

// Throws invalid_argument_error / unknown_instance_error on a bad config.
void validate(const platform_config& config);

// A 64-bit serial number per device, deterministic in (seed, device), never
// one the driver would print as "\n" (zero or a 0xdeadbeef half).
std::uint64_t derive_serial(std::uint64_t seed, std::uint32_t device);

} // namespace neuron::model
