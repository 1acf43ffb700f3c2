// neuron_hw_counters, vcpu_usage and memory_info: the host's, not a runtime's.

#include "monitor_groups.h"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <vector>

namespace neuron::tools::monitor_detail {
namespace {

void begin_group(common::json_writer& w, const period& p) { w.begin_object().key("period").value(p.seconds()); }

// ECC events over the period (neuron-monitor-prometheus.py adds each report's
// values to its counters, so they are per period, not totals).
void hw_counters(common::json_writer& w, const period& p) {
    using field = std::optional<std::uint64_t> device_sample::*;
    constexpr std::array<std::pair<std::string_view, field>, 4> fields{{
        {"mem_ecc_corrected", &device_sample::mem_ecc_corrected},
        {"mem_ecc_uncorrected", &device_sample::mem_ecc_uncorrected},
        {"sram_ecc_uncorrected", &device_sample::sram_ecc_uncorrected},
        {"sram_ecc_corrected", &device_sample::sram_ecc_corrected},
    }};
    begin_group(w, p);
    w.key("neuron_devices").begin_array();
    for (const auto& d : p.to.devices) {
        // A device not seen before, or a counter the driver lacks, shows 0.
        const auto* before = find_device(p.from, d.index);
        w.begin_object().key("neuron_device_index").value(d.index);
        for (const auto& [name, member] : fields) {
            const auto& now = d.*member;
            std::uint64_t events = 0;
            const auto& then = before != nullptr ? before->*member : std::optional<std::uint64_t>();
            if (now && then) events = counter_difference(*now, *then); // no count before: no baseline
            w.key(name).value(events);
        }
        w.end_object();
    }
    w.end_array().key("error").value(p.to.devices.empty() ? "no Neuron device found" : "").end_object();
}

void cpu_usage(common::json_writer& w, const cpu_times& now, const cpu_times& before) {
    const std::array<std::pair<std::string_view, std::uint64_t>, 7> parts{{
        {"user", counter_difference(now.user, before.user)},
        {"nice", counter_difference(now.nice, before.nice)},
        {"system", counter_difference(now.system, before.system)},
        {"idle", counter_difference(now.idle, before.idle)},
        {"io_wait", counter_difference(now.io_wait, before.io_wait)},
        {"irq", counter_difference(now.irq, before.irq)},
        {"soft_irq", counter_difference(now.soft_irq, before.soft_irq)},
    }};
    std::uint64_t total = 0;
    for (const auto& [name, ticks] : parts) total += ticks;
    w.begin_object();
    for (const auto& [name, ticks] : parts) {
        w.key(name).value(percent(static_cast<double>(ticks), static_cast<double>(total)));
    }
    w.end_object();
}

void vcpu_usage(common::json_writer& w, const period& p) {
    const auto& now = p.to.system;
    const auto& before = p.from.system;
    const cpu_times zero;
    begin_group(w, p);
    w.key("average_usage");
    cpu_usage(w, now.total.value_or(zero), before.total.value_or(now.total.value_or(zero)));
    w.key("usage_data").begin_object();
    for (std::size_t i = 0; i < now.per_cpu.size(); ++i) {
        w.key(fmt::format("{}", i));
        cpu_usage(w, now.per_cpu[i], i < before.per_cpu.size() ? before.per_cpu[i] : now.per_cpu[i]);
    }
    w.end_object();
    w.key("context_switch_count").value(counter_difference(now.context_switches, before.context_switches));
    w.key("error").value(now.total ? "" : "the host's CPU times are unknown (/proc/stat)").end_object();
}

void memory_info(common::json_writer& w, const period& p) {
    const auto& s = p.to.system;
    const std::array<std::pair<std::string_view, const std::optional<std::uint64_t>*>, 4> fields{{
        {"memory_total_bytes", &s.memory_total_bytes},
        {"memory_used_bytes", &s.memory_used_bytes},
        {"swap_total_bytes", &s.swap_total_bytes},
        {"swap_used_bytes", &s.swap_used_bytes},
    }};
    std::vector<std::string_view> unknown;
    begin_group(w, p);
    for (const auto& [name, value] : fields) {
        w.key(name).value(value->value_or(0));
        if (!*value) unknown.push_back(name);
    }
    const auto error =
        unknown.empty() ? std::string() : fmt::format("unknown (/proc/meminfo): {}", fmt::join(unknown, ", "));
    w.key("error").value(error).end_object();
}

} // namespace

std::string system_group_json(system_metric metric, const period& p) {
    common::json_writer w(false);
    switch (metric) {
    case system_metric::neuron_hw_counters: hw_counters(w, p); break;
    case system_metric::vcpu_usage: vcpu_usage(w, p); break;
    case system_metric::memory_info: memory_info(w, p); break;
    }
    return value_text(w);
}

} // namespace neuron::tools::monitor_detail
