#include "neuron/tools/monitor_document.h"

#include "monitor_groups.h"

#include "neuron/common/json_writer.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <limits>

namespace neuron::tools {
namespace {

using monitor_detail::period;

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t host_ticks_per_second() {
    const auto ticks = sysconf(_SC_CLK_TCK);
    return ticks > 0 ? static_cast<std::uint64_t>(ticks) : 100;
}

std::string runtime_entry(std::uint32_t pid, const std::string& tag, const std::string& error,
                          const std::string& report) {
    return fmt::format(R"({{"pid":{},"address":"","neuron_runtime_tag":{},"error":{},"report":{{{}}}}})", pid,
                       common::json_escape(tag), common::json_escape(error), report);
}

} // namespace

monitor_state::group::group(const std::shared_ptr<const host_sample>& start, std::uint64_t period)
        : since(start), period_ns(period), due_ns(saturating_add(start->time_ns, period)) {}

void monitor_state::group::begin_period(const std::shared_ptr<const host_sample>& now, bool at_start) {
    since = now;
    if (!at_start) due_ns = saturating_add(now->time_ns, period_ns);
}

monitor_state::monitor_state(monitor_config config, std::uint64_t ticks_per_second)
        : m_config(std::move(config)),
          m_ticks_per_second(ticks_per_second != 0 ? ticks_per_second : host_ticks_per_second()) {}

void monitor_state::start(host_sample first) {
    m_last = std::make_shared<const host_sample>(std::move(first));
    m_system.clear();
    for (const auto& m : m_config.system_metrics) m_system.emplace(m.type, group(m_last, m.period_ns));
    m_runtimes.clear();
    if (!m_last->runtime_error.empty()) return;
    for (const auto& r : m_last->runtimes) {
        auto groups = groups_for(r.tag);
        if (!groups.empty()) m_runtimes.emplace(r.pid, runtime_groups{r.tag, std::move(groups)});
    }
}

// A runtime gets the groups of every entry whose filter finds its tag; a
// group in more than one keeps the first entry's period.
std::map<runtime_metric, monitor_state::group> monitor_state::groups_for(const std::string& tag) const {
    std::map<runtime_metric, group> groups;
    for (const auto& selection : m_config.neuron_runtimes) {
        if (!selection.matches(tag)) continue;
        for (const auto& m : selection.metrics) groups.emplace(m.type, group(m_last, m.period_ns));
    }
    return groups;
}

std::uint64_t monitor_state::next_due_ns() const {
    if (!m_last) return 0;
    auto next = std::numeric_limits<std::uint64_t>::max();
    for (const auto& [metric, g] : m_system) next = std::min(next, g.due_ns);
    for (const auto& [pid, r] : m_runtimes) {
        for (const auto& [metric, g] : r.groups) next = std::min(next, g.due_ns);
    }
    // A runtime that starts now is first reported one period of its group on.
    for (const auto& selection : m_config.neuron_runtimes) {
        for (const auto& m : selection.metrics) next = std::min(next, saturating_add(m_last->time_ns, m.period_ns));
    }
    if (next == std::numeric_limits<std::uint64_t>::max()) next = saturating_add(m_last->time_ns, m_config.period_ns);
    return next;
}

std::string monitor_state::report_at_start(host_sample second) { return refresh(std::move(second), true); }

std::string monitor_state::update(host_sample sample) { return refresh(std::move(sample), false); }

std::string monitor_state::refresh(host_sample sample, bool at_start) {
    if (!m_last || sample.time_ns < m_last->time_ns) {
        start(std::move(sample));
        return document(*m_last);
    }
    const auto now = std::make_shared<const host_sample>(std::move(sample));
    for (auto& [metric, g] : m_system) {
        if (!at_start && !g.due(*now)) continue;
        g.json = monitor_detail::system_group_json(metric, period{*g.since, *now});
        g.begin_period(now, at_start);
    }
    // Without the runtimes' data the groups wait: when it is back, their
    // period runs from what they last saw.
    if (now->runtime_error.empty()) refresh_runtimes(now, at_start);
    m_last = now;
    return document(*now);
}

void monitor_state::refresh_runtimes(const std::shared_ptr<const host_sample>& now, bool at_start) {
    std::map<std::uint32_t, runtime_groups> seen;
    for (const auto& r : now->runtimes) {
        runtime_groups state;
        const auto known = m_runtimes.find(r.pid);
        if (known != m_runtimes.end() && known->second.tag == r.tag) {
            state = std::move(known->second);
        } else {
            // New (its pid reused if the tag changed): counted from the last
            // sample, where it was not, so from zero.
            state = runtime_groups{r.tag, groups_for(r.tag)};
        }
        if (state.groups.empty()) continue;
        for (auto& [metric, g] : state.groups) {
            if (!at_start && !g.due(*now)) continue;
            if (metric == runtime_metric::neuron_runtime_vcpu_usage && r.cpu) {
                // CPU times count from the process's start, not its first
                // session: the first period starts when they were first seen.
                const auto* before = monitor_detail::find_runtime(*g.since, r.pid);
                if (before == nullptr || !before->cpu) {
                    g.begin_period(now, at_start);
                    continue;
                }
            }
            g.json = monitor_detail::runtime_group_json(metric, period{*g.since, *now}, r, m_ticks_per_second);
            g.begin_period(now, at_start);
        }
        seen.emplace(r.pid, std::move(state));
    }
    m_runtimes = std::move(seen);
}

std::string monitor_state::document(const host_sample& now) const {
    std::vector<std::string> entries;
    if (!now.runtime_error.empty()) {
        // The runtimes cannot be asked: each process known to use a device
        // is listed with the reason as its "error" and no report, as the
        // vendor's tool lists a runtime it cannot read.
        const auto entry = [&](std::uint32_t pid, const std::string& tag) {
            const bool wanted = std::ranges::any_of(m_config.neuron_runtimes,
                                                    [&](const runtime_selection& s) { return s.matches(tag); });
            if (wanted) entries.push_back(runtime_entry(pid, tag, now.runtime_error, ""));
        };
        for (const auto& r : now.runtimes) entry(r.pid, r.tag);
        if (now.runtimes.empty()) {
            // Untagged, a process's tag is its pid (the vendor's guide).
            for (const auto& u : now.device_users) entry(u.pid, fmt::format("{}", u.pid));
        }
    } else {
        for (const auto& r : now.runtimes) {
            const auto state = m_runtimes.find(r.pid);
            if (state == m_runtimes.end()) continue;
            std::string report;
            for (const auto& [metric, g] : state->second.groups) {
                if (!g.json) continue;
                report += fmt::format("{}{}:{}", report.empty() ? "" : ",", common::json_escape(metric_name(metric)),
                                      *g.json);
            }
            entries.push_back(runtime_entry(r.pid, r.tag, "", report));
        }
    }
    std::string system = "null";
    if (!m_system.empty()) {
        system.clear();
        for (const auto& [metric, g] : m_system) {
            if (!g.json) continue;
            system +=
                fmt::format("{}{}:{}", system.empty() ? "" : ",", common::json_escape(metric_name(metric)), *g.json);
        }
        system = "{" + system + "}";
    }
    return fmt::format(
        R"({{"neuron_runtime_data":[{}],"system_data":{},"instance_info":{},"neuron_hardware_info":{}}})",
        fmt::join(entries, ","), system, monitor_detail::instance_info_json(now),
        monitor_detail::hardware_info_json(now));
}

} // namespace neuron::tools
