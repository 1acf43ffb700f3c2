#pragma once

// Pairs of host samples for neuron-monitor's tests, and reading its report.

#include "support/sample_builder.h"

#include "neuron/tools/monitor_config.h"
#include "neuron/tools/monitor_document.h"

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

namespace neuron::tools::testing {

inline constexpr std::uint64_t second_ns = 1'000'000'000;
inline constexpr std::uint64_t test_ticks_per_second = 100;

// A runtime holding `cores`, with nothing done yet.
inline runtime_sample runtime_holding(std::uint32_t pid, std::string tag, std::uint32_t lnc,
                                      const std::vector<physical_core_id>& cores) {
    runtime_sample r;
    r.pid = pid;
    r.command = "python train.py";
    r.tag = std::move(tag);
    r.runtime_version = "2.30.50.0";
    r.lnc = lnc;
    r.logical_cores = static_cast<std::uint32_t>(cores.size()) / lnc;
    for (const auto& c : cores) r.activity[c] = core_activity{};
    return r;
}

inline monitor_config config_from(const std::string& json) { return parse_monitor_config(json, "test.json"); }

// The report over [before, after] under `config`.
inline std::string report_between(const monitor_config& config, host_sample before, host_sample after) {
    monitor_state state(config, test_ticks_per_second);
    state.start(std::move(before));
    return state.update(std::move(after));
}

inline YAML::Node parsed(const std::string& document) { return YAML::Load(document); }

// The report's first runtime's group `name`.
inline YAML::Node runtime_group(const YAML::Node& report, const std::string& name) {
    return report["neuron_runtime_data"][0]["report"][name];
}

} // namespace neuron::tools::testing
