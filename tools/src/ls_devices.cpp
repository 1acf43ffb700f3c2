#include "ls_devices.h"

#include <algorithm>
#include <ranges>

namespace neuron::tools::detail {
namespace {

bool holds_core_of(const runtime_sample& r, std::uint32_t device) {
    return std::ranges::any_of(r.activity, [&](const auto& entry) { return entry.first.first == device; });
}

const runtime_sample* runtime_of(const host_sample& h, std::uint32_t pid) {
    const auto it = std::ranges::find(h.runtimes, pid, &runtime_sample::pid);
    return it == h.runtimes.end() ? nullptr : &*it;
}

bool listed(const std::vector<ls_process>& list, std::uint32_t pid) {
    return std::ranges::find(list, pid, &ls_process::pid) != list.end();
}

} // namespace

std::vector<ls_process> processes_on(const host_sample& h, const device_sample& d, bool all_processes) {
    std::vector<ls_process> runtimes;
    for (const auto& r : h.runtimes) {
        if (holds_core_of(r, d.index) && !listed(runtimes, r.pid)) {
            runtimes.push_back({r.pid, r.command, runtime_version_text(r.runtime_version)});
        }
    }
    std::ranges::sort(runtimes, {}, &ls_process::pid);
    if (!all_processes) return runtimes;

    std::vector<ls_process> others;
    for (const auto& u : h.device_users) {
        if (std::ranges::find(u.devices, d.index) == u.devices.end()) continue;
        if (listed(runtimes, u.pid) || listed(others, u.pid)) continue;
        const auto* r = runtime_of(h, u.pid); // a runtime with the device open, none of its cores held
        others.push_back({u.pid, u.command, r != nullptr ? runtime_version_text(r->runtime_version) : std::string()});
    }
    std::ranges::sort(others, {}, &ls_process::pid);
    runtimes.insert(runtimes.end(), others.begin(), others.end());
    return runtimes;
}

std::string runtime_version_text(std::string_view version) {
    std::size_t dots = 0;
    for (std::size_t i = 0; i < version.size(); ++i) {
        if (version[i] == '.' && ++dots == 3) return std::string(version.substr(0, i));
    }
    return std::string(version);
}

std::string short_bdf(std::string_view bdf) {
    // Domain "dddd:" before "bb:dd.f".
    if (bdf.size() == 12 && bdf[4] == ':' && bdf[7] == ':') return std::string(bdf.substr(5));
    return std::string(bdf);
}

bool shows_lnc(const host_sample& h) {
    return std::ranges::any_of(h.devices, [](const device_sample& d) { return d.device_name == "Trainium2"; });
}

std::uint32_t lnc_of(const host_sample& h) { return h.lnc == 0 ? 1 : h.lnc; }

std::vector<std::uint32_t> core_ids(const host_sample& h, const device_sample& d) {
    const auto n = logical_cores_of(h, d);
    std::vector<std::uint32_t> ids;
    const auto lnc = lnc_of(h);
    for (std::uint32_t i = 0; i < n; ++i) ids.push_back(global_logical_core(h, {d.index, i * lnc}, lnc));
    return ids;
}

} // namespace neuron::tools::detail
