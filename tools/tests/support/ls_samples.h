#pragma once

// Processes for the neuron-ls views' tests, added to an instance_sample.

#include "support/sample_builder.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace neuron::tools::testing {

// A runtime holding core 0 of each of `devices`.
inline void add_runtime(host_sample& h, std::uint32_t pid, std::string command,
                        const std::vector<std::uint32_t>& devices, std::string version = "2.0.0.0") {
    runtime_sample r;
    r.pid = pid;
    r.command = std::move(command);
    r.runtime_version = std::move(version);
    for (const auto d : devices) r.activity[{d, 0}] = core_activity{};
    h.runtimes.push_back(std::move(r));
}

// A process with `devices` open that is not a runtime.
inline void add_device_user(host_sample& h, std::uint32_t pid, std::string command,
                            std::vector<std::uint32_t> devices) {
    device_user u;
    u.pid = pid;
    u.command = std::move(command);
    u.devices = std::move(devices);
    h.device_users.push_back(std::move(u));
}

inline std::vector<std::uint32_t> all_devices(const host_sample& h) {
    std::vector<std::uint32_t> ids;
    for (const auto& d : h.devices) ids.push_back(d.index);
    return ids;
}

// The docs' trn2n.48xlarge example: trn2.48xlarge's placement, with the
// links the docs list (trn1's torus order, not the trn2 driver's).
inline host_sample docs_trn2n_sample() {
    constexpr std::array<std::array<std::uint32_t, 4>, 16> links{{
        {12, 3, 4, 1},
        {13, 0, 5, 2},
        {14, 1, 6, 3},
        {15, 2, 7, 0},
        {0, 7, 8, 5},
        {1, 4, 9, 6},
        {2, 5, 10, 7},
        {3, 6, 11, 4},
        {4, 11, 12, 9},
        {5, 8, 13, 10},
        {6, 9, 14, 11},
        {7, 10, 15, 8},
        {8, 15, 0, 13},
        {9, 12, 1, 14},
        {10, 13, 2, 15},
        {11, 14, 3, 12},
    }};
    auto h = instance_sample("trn2.48xlarge", 2);
    h.instance_type = "trn2n.48xlarge";
    h.instance_id = "i-aabbccdd123456789";
    for (auto& d : h.devices) d.connected.assign(links[d.index].begin(), links[d.index].end());
    return h;
}

// The docs' benchmark command: cut to "...--warmup none --fixed-instance-count 64 --..." at 80.
inline const std::string bench_command =
    "neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --work-dir /tmp/bench model.neff";

} // namespace neuron::tools::testing
