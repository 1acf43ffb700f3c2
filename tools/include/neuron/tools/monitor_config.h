#pragma once

// neuron-monitor's configuration (reference nrt-api.md §4.2): which metric
// groups to report, for which runtimes, how often.

#include <cstdint>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::tools {

// In the order the vendor's report lists them.
enum class runtime_metric : std::uint8_t {
    neuroncore_counters,
    execution_stats,
    memory_used,
    neuron_runtime_vcpu_usage
};
enum class system_metric : std::uint8_t { neuron_hw_counters, vcpu_usage, memory_info };

inline constexpr std::size_t runtime_metric_count = 4;
inline constexpr std::size_t system_metric_count = 3;

std::string_view metric_name(runtime_metric metric);
std::string_view metric_name(system_metric metric);

inline constexpr std::uint64_t nanoseconds_per_second = 1'000'000'000;
inline constexpr std::uint64_t default_monitor_period_ns = 5 * nanoseconds_per_second;
// Shorter periods only busy the sampler; longer ones are a typo ("5h" for "5s").
inline constexpr std::uint64_t min_monitor_period_ns = 1'000'000;
inline constexpr std::uint64_t max_monitor_period_ns = 24 * 3600 * nanoseconds_per_second;
// Tags are at most 255 characters; a filter far longer is not a tag filter.
inline constexpr std::size_t max_tag_filter_length = 1024;

struct runtime_metric_config {
    runtime_metric type = runtime_metric::neuroncore_counters;
    std::uint64_t period_ns = default_monitor_period_ns;
};

struct system_metric_config {
    system_metric type = system_metric::neuron_hw_counters;
    std::uint64_t period_ns = default_monitor_period_ns;
};

// One entry of "neuron_runtimes": the runtimes whose tag the filter finds,
// and their groups.
struct runtime_selection {
    std::string tag_filter;           // as written; empty: every runtime
    std::optional<std::regex> filter; // absent: every runtime
    std::vector<runtime_metric_config> metrics;

    // The filter is searched for anywhere in the tag, as Go's
    // regexp.MatchString does (the vendor's durations are Go's; we take the
    // tool to be written in Go).
    bool matches(std::string_view tag) const;
};

struct monitor_config {
    std::uint64_t period_ns = default_monitor_period_ns; // the root's "period"
    std::vector<runtime_selection> neuron_runtimes;
    std::vector<system_metric_config> system_metrics;
};

// A configuration that cannot be used: "SOURCE:LINE:COLUMN: what is wrong".
class monitor_config_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Without a configuration file: every group, every runtime, every 5 s.
monitor_config default_monitor_config();

// Reads a configuration file's text; `source` names it in messages.
// Total: any text gives a config or a monitor_config_error.
monitor_config parse_monitor_config(std::string_view text, std::string_view source);

// A duration as Go's time.ParseDuration reads it ("1s", "500ms", "1m30s",
// "1.5h", "0"): nanoseconds, or why not.
struct duration_result {
    std::int64_t ns = 0;
    std::string error; // empty: ns is the duration
};
duration_result parse_duration(std::string_view text);

} // namespace neuron::tools
