// neuroncore_counters, execution_stats and neuron_runtime_vcpu_usage: what a
// runtime did over the period.

#include "monitor_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace neuron::tools::monitor_detail {
namespace {

enum class outcome : std::uint8_t {
    none,
    completed,
    completed_with_err,
    completed_with_num_err,
    timed_out,
    incorrect_input,
    failed_to_queue
};
enum class error_kind : std::uint8_t { none, generic, numerical, transient, model, runtime, hardware };

constexpr std::array<std::string_view, 6> outcome_keys{"completed", "completed_with_err", "completed_with_num_err",
                                                       "timed_out", "incorrect_input",    "failed_to_queue"};
constexpr std::array<std::string_view, 6> error_keys{"generic", "numerical", "transient",
                                                     "model",   "runtime",   "hardware"};

struct status_row {
    std::string_view counter; // the driver's status/ directory name
    outcome counts_as;
    error_kind error;
};

// The driver's status counters (driver-sysfs.md "Mapping to directories";
// both the 2.7 and later names) as neuron-monitor's execution and error
// summaries. The outcomes follow the status each counter counts
// (nrt-api.md §4.2). The error kinds are inferred: the vendor's six error
// counters (the datastore's ERR_GENERIC..ERR_RT) have no sysfs directory,
// so each status is put under the kind its name and status code describe.
// A counter named nowhere here is counted nowhere.
constexpr std::array<status_row, 27> status_table{{
    {"success", outcome::completed, error_kind::none},
    {"execute_completed_with_error", outcome::completed_with_err, error_kind::generic},
    {"infer_completed_with_error", outcome::completed_with_err, error_kind::generic},
    {"execute_completed_with_num_error", outcome::completed_with_num_err, error_kind::numerical},
    {"infer_completed_with_num_error", outcome::completed_with_num_err, error_kind::numerical},
    {"timeout", outcome::timed_out, error_kind::none},
    {"exec_bad_input", outcome::incorrect_input, error_kind::none},
    {"execute_failed_to_queue", outcome::failed_to_queue, error_kind::none},
    {"infer_failed_to_queue", outcome::failed_to_queue, error_kind::none},
    {"generic_error", outcome::none, error_kind::generic},
    {"failure", outcome::none, error_kind::generic},     // NRT_FAILURE
    {"invalid_error", outcome::none, error_kind::model}, // NRT_INVALID: a bad NEFF or argument
    {"unsupported_neff_version", outcome::none, error_kind::model},
    {"oob_error", outcome::completed_with_err, error_kind::model}, // the program reached out of bounds
    {"resource_error", outcome::none, error_kind::runtime},
    {"resource_nc_error", outcome::none, error_kind::runtime},
    {"execute_sw_nq_overflow", outcome::completed_with_err, error_kind::runtime},
    // Sub-types of execute_completed_with_error, which counts the execution.
    {"execute_sw_semaphore_error", outcome::none, error_kind::runtime},
    {"execute_sw_event_error", outcome::none, error_kind::runtime},
    {"execute_sw_psum_collision", outcome::none, error_kind::runtime},
    {"execute_sw_sequencer_fatal", outcome::none, error_kind::runtime},
    {"hw_error", outcome::none, error_kind::hardware},
    {"hw_collectives_error", outcome::completed_with_err, error_kind::hardware},
    {"hw_hbm_ue_error", outcome::completed_with_err, error_kind::hardware},
    {"hw_nc_ue_error", outcome::completed_with_err, error_kind::hardware},
    {"hw_dma_abort_error", outcome::completed_with_err, error_kind::hardware},
    // A repairable error: the "recoverable" kind.
    {"hw_repairable_hbm_ue_error", outcome::completed_with_err, error_kind::transient},
}};

const core_activity* activity_before(const runtime_sample* before, physical_core_id core) {
    if (before == nullptr) return nullptr;
    const auto it = before->activity.find(core);
    return it == before->activity.end() ? nullptr : &it->second;
}

void begin_group(common::json_writer& w, const period& p) { w.begin_object().key("period").value(p.seconds()); }

void neuroncore_counters(common::json_writer& w, const period& p, const runtime_sample& r,
                         const runtime_sample* before) {
    struct logical_core {
        std::uint64_t busy_us = 0;
        std::uint64_t flops = 0;
        std::vector<std::pair<std::uint32_t, std::uint64_t>> physical; // global physical index, busy us
        const hardware_names* names = nullptr;
    };
    const auto lnc = runtime_lnc(p.to, r);
    std::map<std::uint32_t, logical_core> cores;
    for (const auto& [core, now] : r.activity) {
        const auto* then = activity_before(before, core);
        auto& c = cores[global_logical_core(p.to, core, lnc)];
        const auto busy = counter_difference(now.time_in_use_us, then ? then->time_in_use_us : 0);
        c.busy_us += busy;
        c.flops += counter_difference(now.flops, then ? then->flops : 0);
        c.physical.emplace_back(global_physical_core(p.to, core), busy);
        if (const auto* d = find_device(p.to, core.first)) c.names = hardware_names_of(d->device_name);
    }
    const double period_us = static_cast<double>(p.ns()) / 1e3;
    const double seconds = p.seconds();
    begin_group(w, p);
    w.key("neuroncores_in_use").begin_object();
    for (const auto& [index, c] : cores) {
        w.key(fmt::format("{}", index)).begin_object();
        w.key("neuroncore_utilization").value(percent(static_cast<double>(c.busy_us), lnc * period_us));
        // Operations per second over the period, as the vendor's guide defines "flops".
        const auto rate = seconds > 0 ? std::llround(static_cast<double>(c.flops) / seconds) : 0;
        w.key("flops").value(static_cast<std::uint64_t>(std::max<long long>(rate, 0)));
        if (lnc > 1 && c.names != nullptr && !c.names->logical_core_version.empty()) {
            w.key(c.names->logical_core_version).begin_object();
            for (const auto& [physical, busy] : c.physical) {
                w.key(fmt::format("nc_{}.{}", c.names->core_version, physical)).begin_object();
                w.key("neuroncore_utilization").value(percent(static_cast<double>(busy), period_us)).end_object();
            }
            w.end_object();
        }
        w.end_object();
    }
    w.end_object().key("error").value("").end_object();
}

// Nearest rank: the smallest value with at least pct% of the values at or below it.
double percentile_seconds(const std::vector<std::uint64_t>& sorted_ns, unsigned pct) {
    const auto n = sorted_ns.size();
    auto rank = (pct * n + 99) / 100;
    rank = std::clamp<std::size_t>(rank, 1, n);
    return static_cast<double>(sorted_ns[rank - 1]) / 1e9;
}

void latency_object(common::json_writer& w, std::vector<std::uint64_t> ns) {
    if (ns.empty()) {
        w.value(nullptr);
        return;
    }
    std::ranges::sort(ns);
    w.begin_object();
    for (const unsigned pct : {0U, 1U, 25U, 50U, 75U, 99U, 100U}) {
        w.key(fmt::format("p{}", pct)).value(percentile_seconds(ns, pct));
    }
    w.end_object();
}

void execution_stats(common::json_writer& w, const period& p, const runtime_sample& r, const runtime_sample* before) {
    std::array<std::uint64_t, outcome_keys.size()> outcomes{};
    std::array<std::uint64_t, error_keys.size()> errors{};
    for (const auto& [core, now] : r.activity) {
        const auto* then = activity_before(before, core);
        for (const auto& [name, count] : now.statuses) {
            const auto row = std::ranges::find(status_table, name, &status_row::counter);
            if (row == status_table.end()) continue;
            std::uint64_t earlier = 0;
            if (then != nullptr) {
                const auto it = then->statuses.find(name);
                if (it != then->statuses.end()) earlier = it->second;
            }
            const auto n = counter_difference(count, earlier);
            if (row->counts_as != outcome::none) outcomes[static_cast<std::size_t>(row->counts_as) - 1] += n;
            if (row->error != error_kind::none) errors[static_cast<std::size_t>(row->error) - 1] += n;
        }
    }
    std::vector<std::uint64_t> total_ns, device_ns;
    for (const auto& l : r.latencies) {
        if (l.ended_ns <= p.from.time_ns || l.ended_ns > p.to.time_ns) continue;
        total_ns.push_back(l.total_ns);
        device_ns.push_back(l.device_ns);
    }
    begin_group(w, p);
    w.key("error_summary").begin_object();
    for (std::size_t i = 0; i < error_keys.size(); ++i) w.key(error_keys[i]).value(errors[i]);
    w.end_object().key("execution_summary").begin_object();
    for (std::size_t i = 0; i < outcome_keys.size(); ++i) w.key(outcome_keys[i]).value(outcomes[i]);
    w.end_object().key("latency_stats").begin_object();
    w.key("total_latency");
    latency_object(w, std::move(total_ns));
    w.key("device_latency");
    latency_object(w, std::move(device_ns));
    w.end_object().key("error").value("").end_object();
}

// Percent of all the host's vCPUs, as the system's vcpu_usage counts them.
void vcpu_usage(common::json_writer& w, const period& p, const runtime_sample& r, const runtime_sample* before,
                std::uint64_t ticks_per_second) {
    std::string error;
    double user = 0, system = 0;
    const auto vcpus = p.to.system.per_cpu.size();
    if (!r.cpu) {
        error = fmt::format("the CPU times of process {} are unknown (/proc/{}/stat)", r.pid, r.pid);
    } else if (vcpus == 0) {
        error = "the number of vCPUs is unknown (/proc/stat)";
    } else {
        const cpu_times zero;
        const auto& then = before != nullptr && before->cpu ? *before->cpu : zero;
        // The host's ticks over the period (all vCPUs): the sample clock may be
        // the emulator's, which the host's CPU time does not follow.
        const double capacity =
            p.to.system.total && p.from.system.total && p.to.system.total->sum() > p.from.system.total->sum()
                ? static_cast<double>(p.to.system.total->sum() - p.from.system.total->sum())
                : p.seconds() * static_cast<double>(ticks_per_second) * static_cast<double>(vcpus);
        user = percent(static_cast<double>(counter_difference(r.cpu->user, then.user)), capacity);
        system = percent(static_cast<double>(counter_difference(r.cpu->system, then.system)), capacity);
    }
    begin_group(w, p);
    w.key("vcpu_usage").begin_object().key("user").value(user).key("system").value(system).end_object();
    w.key("error").value(error).end_object();
}

} // namespace

std::string runtime_group_json(runtime_metric metric, const period& p, const runtime_sample& runtime,
                               std::uint64_t ticks_per_second) {
    const auto* before = find_runtime(p.from, runtime.pid);
    common::json_writer w(false);
    switch (metric) {
    case runtime_metric::neuroncore_counters: neuroncore_counters(w, p, runtime, before); break;
    case runtime_metric::execution_stats: execution_stats(w, p, runtime, before); break;
    case runtime_metric::memory_used: return memory_used_json(p, runtime);
    case runtime_metric::neuron_runtime_vcpu_usage: vcpu_usage(w, p, runtime, before, ticks_per_second); break;
    }
    return value_text(w);
}

} // namespace neuron::tools::monitor_detail
