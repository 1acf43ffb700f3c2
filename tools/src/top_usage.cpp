#include "neuron/tools/top_screen.h"

#include "device_generations.h"

#include <algorithm>
#include <set>

namespace neuron::tools {
namespace {

// A counter's growth; a counter that went back (reset) counts from 0.
std::uint64_t growth(std::uint64_t now, std::uint64_t before) { return now >= before ? now - before : now; }

const runtime_sample* find_runtime(const host_sample& h, std::uint32_t pid) {
    for (const auto& r : h.runtimes) {
        if (r.pid == pid) return &r;
    }
    return nullptr;
}

// The runtimes a tab shows.
std::vector<const runtime_sample*> tab_runtimes(const host_sample& now, const runtime_sample* tab) {
    if (tab != nullptr) return {tab};
    std::vector<const runtime_sample*> all;
    for (const auto& r : now.runtimes) all.push_back(&r);
    return all;
}

double percent(double part, double whole) { return whole <= 0 ? 0 : std::clamp(100 * part / whole, 0.0, 100.0); }

void add(memory_breakdown& sum, const memory_breakdown& more) {
    for (const auto& [category, bytes] : more) sum[category] += bytes;
}

std::uint64_t bytes_of(const memory_breakdown& m, const std::string& category) {
    const auto it = m.find(category);
    return it == m.end() ? 0 : it->second;
}

std::uint64_t total_of(const memory_breakdown& m) {
    std::uint64_t sum = 0;
    for (const auto& [category, bytes] : m) sum += bytes;
    return sum;
}

} // namespace

std::vector<const runtime_sample*> top_tabs(const host_sample& now) {
    std::vector<const runtime_sample*> tabs;
    for (const auto& r : now.runtimes) tabs.push_back(&r);
    std::sort(tabs.begin(), tabs.end(), [](const auto* a, const auto* b) { return a->pid < b->pid; });
    return tabs;
}

const runtime_sample* top_tab_runtime(const host_sample& now, const top_state& state) {
    return state.tab_pid == 0 ? nullptr : find_runtime(now, state.tab_pid);
}

std::string top_core_version(const host_sample& now) {
    const auto* names = now.devices.empty() ? nullptr : hardware_names_of(now.devices.front().device_name);
    return names == nullptr ? std::string() : std::string(core_version_at(*names, now.lnc));
}

std::vector<std::vector<top_core_usage>> top_core_usages(const host_sample& before, const host_sample& now,
                                                         const runtime_sample* tab) {
    const std::uint32_t lnc = std::max<std::uint32_t>(now.lnc, 1);
    std::vector<std::vector<top_core_usage>> usage;
    std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> sums; // (us in use, flops)
    for (const auto& d : now.devices) {
        usage.emplace_back(logical_cores_of(now, d));
        sums.emplace_back(logical_cores_of(now, d));
    }
    for (const auto* r : tab_runtimes(now, tab)) {
        const auto* earlier = find_runtime(before, r->pid);
        for (const auto& [core, activity] : r->activity) {
            const core_activity* was = nullptr;
            if (earlier != nullptr) {
                const auto it = earlier->activity.find(core);
                if (it != earlier->activity.end()) was = &it->second;
            }
            for (std::size_t i = 0; i < now.devices.size(); ++i) {
                if (now.devices[i].index != core.first || core.second / lnc >= sums[i].size()) continue;
                auto& sum = sums[i][core.second / lnc];
                sum.first += growth(activity.time_in_use_us, was != nullptr ? was->time_in_use_us : 0);
                sum.second += growth(activity.flops, was != nullptr ? was->flops : 0);
            }
        }
    }
    const double period_ns = now.time_ns > before.time_ns ? static_cast<double>(now.time_ns - before.time_ns) : 0;
    for (std::size_t i = 0; i < usage.size(); ++i) {
        for (std::size_t c = 0; c < usage[i].size(); ++c) {
            usage[i][c].utilization = percent(static_cast<double>(sums[i][c].first) * 1000, lnc * period_ns);
            usage[i][c].tflops = period_ns <= 0 ? 0 : static_cast<double>(sums[i][c].second) / period_ns / 1000;
        }
    }
    return usage;
}

top_vcpu_usage top_system_vcpu(const host_sample& before, const host_sample& now) {
    if (!before.system.total || !now.system.total) return {};
    const auto& a = *before.system.total;
    const auto& b = *now.system.total;
    const auto whole = static_cast<double>(growth(b.sum(), a.sum()));
    return {percent(static_cast<double>(growth(b.user, a.user)), whole),
            percent(static_cast<double>(growth(b.system, a.system)), whole)};
}

top_vcpu_usage top_runtime_vcpu(const host_sample& before, const host_sample& now, const runtime_sample* tab) {
    if (!before.system.total || !now.system.total) return {};
    const auto whole = static_cast<double>(growth(now.system.total->sum(), before.system.total->sum()));
    std::uint64_t user = 0, system = 0;
    for (const auto* r : tab_runtimes(now, tab)) {
        if (!r->cpu) continue;
        const auto* earlier = find_runtime(before, r->pid);
        const cpu_times was = earlier != nullptr && earlier->cpu ? *earlier->cpu : cpu_times{};
        user += growth(r->cpu->user, was.user);
        system += growth(r->cpu->system, was.system);
    }
    return {percent(static_cast<double>(user), whole), percent(static_cast<double>(system), whole)};
}

top_memory_categories top_categories(const memory_breakdown& memory) {
    top_memory_categories c;
    c.tensors = bytes_of(memory, "tensors");
    c.constants = bytes_of(memory, "constants");
    c.model_code = bytes_of(memory, "model_code");
    c.scratchpad = bytes_of(memory, "model_shared_scratchpad");
    const auto named = c.tensors + c.constants + c.model_code + c.scratchpad;
    const auto total = total_of(memory);
    c.runtime = total > named ? total - named : 0;
    return c;
}

top_memory_summary top_memory(const host_sample& now, const runtime_sample* tab) {
    memory_breakdown device, host;
    for (const auto& d : now.devices) {
        bool held_here = tab == nullptr;
        for (const auto& c : d.cores) {
            if (tab != nullptr && !tab->activity.contains({d.index, c.index})) continue;
            add(device, c.device_mem);
            held_here = true;
        }
        if (held_here) add(host, d.host_mem);
    }
    top_memory_summary s;
    s.host_total = total_of(host);
    s.host_tensors = bytes_of(host, "tensors");
    s.host_constants = bytes_of(host, "constants");
    s.host_dma_buffers = bytes_of(host, "dma_buffers");
    const auto named = s.host_tensors + s.host_constants + s.host_dma_buffers;
    s.host_app = s.host_total > named ? s.host_total - named : 0;
    s.device = top_categories(device);
    return s;
}

} // namespace neuron::tools
