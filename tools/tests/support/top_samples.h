#pragma once

// Runtimes, models and counters added to hand-built samples for neuron-top's
// tests: a sample and the same host one period later.

#include "support/sample_builder.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace neuron::tools::testing {

inline constexpr std::uint64_t one_second_ns = 1'000'000'000;

// The same host `ns` later, nothing else changed.
inline host_sample later(const host_sample& h, std::uint64_t ns = one_second_ns) {
    auto next = h;
    next.time_ns += ns;
    return next;
}

// A runtime holding logical cores [first, first + count) with idle counters.
inline runtime_sample& add_runtime(host_sample& h, std::uint32_t pid, std::uint32_t first, std::uint32_t count) {
    runtime_sample r;
    r.pid = pid;
    r.command = "python3 train.py";
    r.runtime_version = "2.30.50.0";
    r.lnc = h.lnc;
    r.first_logical_core = first;
    r.logical_cores = count;
    const auto per_device = logical_cores_of(h, h.devices.front());
    for (std::uint32_t l = first; l < first + count; ++l) {
        for (std::uint32_t p = 0; p < h.lnc; ++p) r.activity[{l / per_device, (l % per_device) * h.lnc + p}] = {};
    }
    h.runtimes.push_back(std::move(r));
    return h.runtimes.back();
}

inline runtime_sample& runtime(host_sample& h, std::uint32_t pid) {
    for (auto& r : h.runtimes) {
        if (r.pid == pid) return r;
    }
    throw std::logic_error("no runtime " + std::to_string(pid));
}

// The runtime's counters on a physical core grow by `busy_us` and `flops`.
inline void busy(host_sample& now, std::uint32_t pid, physical_core_id core, std::uint64_t busy_us,
                 std::uint64_t flops = 0) {
    auto& a = runtime(now, pid).activity[core];
    a.time_in_use_us += busy_us;
    a.flops += flops;
}

inline model_sample& add_model(host_sample& h, std::uint32_t pid, std::uint32_t id, const std::string& name,
                               std::uint32_t logical_core, memory_breakdown device, memory_breakdown host = {}) {
    model_sample m;
    m.id = id;
    m.name = name;
    m.logical_core = logical_core;
    m.device_memory = std::move(device);
    m.host_memory = std::move(host);
    auto& r = runtime(h, pid);
    r.models.push_back(std::move(m));
    return r.models.back();
}

} // namespace neuron::tools::testing
