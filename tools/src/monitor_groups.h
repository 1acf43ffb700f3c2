#pragma once

// The JSON of each neuron-monitor group (reference nrt-api.md §4.2), one
// value each, written over a period: from the sample the group was last
// reported at (`from`) to the current one (`to`). Counters are differences
// over the period; memory and sizes are `to`'s.

#include "device_generations.h"
#include "neuron/common/json_writer.h"
#include "neuron/tools/host_sample.h"
#include "neuron/tools/monitor_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace neuron::tools::monitor_detail {

struct period {
    const host_sample& from;
    const host_sample& to;

    std::uint64_t ns() const { return to.time_ns > from.time_ns ? to.time_ns - from.time_ns : 0; }
    double seconds() const { return static_cast<double>(ns()) / 1e9; }
};

// `runtime` is `p.to`'s; its state at `p.from` is looked up by pid (absent:
// it started within the period, from zero). `ticks_per_second` is the clock
// /proc counts CPU time in.
std::string runtime_group_json(runtime_metric metric, const period& p, const runtime_sample& runtime,
                               std::uint64_t ticks_per_second);
std::string system_group_json(system_metric metric, const period& p);
std::string instance_info_json(const host_sample& h);
std::string hardware_info_json(const host_sample& h);

// A finished one-line writer's value, without the newline that ends a document.
inline std::string value_text(const common::json_writer& w) {
    std::string text = w.str();
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

// `part` of `whole` in percent, at most 100, to the hundredth the vendor's
// reports show (42.01).
inline double percent(double part, double whole) {
    if (!(whole > 0)) return 0.0;
    return std::round(std::min(100.0, 100.0 * part / whole) * 100.0) / 100.0;
}

// Pieces the groups share.
const runtime_sample* find_runtime(const host_sample& h, std::uint32_t pid);
std::uint64_t counter_difference(std::uint64_t now, std::uint64_t before); // a counter that went back was reset
std::uint32_t runtime_lnc(const host_sample& h, const runtime_sample& r);
const device_sample* find_device(const host_sample& h, std::uint32_t index);
std::string memory_used_json(const period& p, const runtime_sample& runtime);

} // namespace neuron::tools::monitor_detail
