// nrt_inspect_begin's configuration: the NEURON_RT_INSPECT_* variables
// (reference/nrt-api-surface.md §9.3). Without NEURON_RT_INSPECT_ENABLE=1
// the others have no effect. NEURON_RT_INSPECT_DEVICE_PROFILE defaults to 0
// as the newer docs say (the header says 1); host memory and CPU series are
// opt-in.

#include "profile_requests.h"

#include "api.h"

#include <charconv>
#include <cstdlib>
#include <functional>

namespace neuron::shim {
namespace {

constexpr std::uint32_t nc_limit = 4096; // bounds a range such as "0-4000000000"

std::optional<std::string> variable(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

std::vector<std::string_view> split(std::string_view text) {
    std::vector<std::string_view> parts;
    while (!text.empty()) {
        const auto comma = text.find(',');
        auto part = text.substr(0, comma);
        while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
        while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
        parts.push_back(part);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return parts;
}

template <typename T>
std::optional<T> number(std::string_view text) {
    T value{};
    const auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || rest != text.data() + text.size()) return std::nullopt;
    return value;
}

NRT_STATUS read_flag(const char* fn, const char* name, bool& flag) {
    const auto value = variable(name);
    if (!value) return NRT_SUCCESS;
    if (*value != "0" && *value != "1") return invalid(fn, std::string(name) + " must be 0 or 1");
    flag = *value == "1";
    return NRT_SUCCESS;
}

// "0,2,4", "0-3" or both: only those cores.
NRT_STATUS read_nc_filter(const char* fn, const char* name, sys_trace::capture_settings& capture) {
    const auto value = variable(name);
    if (!value) return NRT_SUCCESS;
    capture.ncs_by_default = false;
    for (const auto part : split(*value)) {
        const auto dash = part.find('-');
        const auto first = number<std::uint32_t>(part.substr(0, dash));
        const auto last = dash == std::string_view::npos ? first : number<std::uint32_t>(part.substr(dash + 1));
        if (!first || !last || *first > *last || *last >= nc_limit) {
            return invalid(fn, std::string(name) + ": '" + sys_trace::printable(part) +
                                   "' is not a NeuronCore index or range below " + std::to_string(nc_limit));
        }
        for (auto nc = *first; nc <= *last; ++nc) capture.nc_overrides[nc] = true;
    }
    return NRT_SUCCESS;
}

// Event names and the groups hardware/software; "^x" excludes x. Only
// exclusions: every other type.
NRT_STATUS read_type_filter(const char* fn, const char* name, sys_trace::type_set& types) {
    const auto value = variable(name);
    if (!value) return NRT_SUCCESS;
    sys_trace::type_set included;
    sys_trace::type_set excluded;
    bool includes = false;
    for (auto part : split(*value)) {
        const bool exclude = part.starts_with('^');
        if (exclude) part.remove_prefix(1);
        sys_trace::type_set matched;
        for (const auto& row : sys_trace::event_types) {
            const bool group = (part == "hardware" && row.group == sys_trace::event_group::hardware) ||
                               (part == "software" && row.group == sys_trace::event_group::software);
            if (group || part == row.name) matched.set(static_cast<std::size_t>(row.type));
        }
        if (matched.none()) {
            return invalid(fn, std::string(name) + ": unknown event type '" + sys_trace::printable(part) + "'");
        }
        (exclude ? excluded : included) |= matched;
        includes = includes || !exclude;
    }
    types = (includes ? included : sys_trace::type_set().set()) & ~excluded;
    return NRT_SUCCESS;
}

NRT_STATUS read_device_profile(const char* fn, inspect_settings& settings) {
    const char* name = "NEURON_RT_INSPECT_DEVICE_PROFILE";
    const auto value = variable(name).value_or("0");
    const bool on = value != "0";
    if (value == "session")
        settings.device_profile_mode = NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION;
    else if (value == "1" || value == "model")
        settings.device_profile_mode = NRT_INSPECT_DEVICE_PROFILE_MODE_MODEL;
    else if (on)
        return invalid(fn, std::string(name) + " must be 0, 1, model or session");
    settings.activities.set(static_cast<std::size_t>(activity::device_profile), on);
    return NRT_SUCCESS;
}

NRT_STATUS read_activity(const char* fn, const char* name, activity a, bool by_default, inspect_settings& settings) {
    bool on = by_default;
    if (const auto status = read_flag(fn, name, on); status != NRT_SUCCESS) return status;
    settings.activities.set(static_cast<std::size_t>(a), on);
    return NRT_SUCCESS;
}

NRT_STATUS read_max_events(const char* fn, std::uint64_t& max_events) {
    const char* name = "NEURON_RT_INSPECT_SYS_TRACE_MAX_EVENTS_PER_NC";
    const auto value = variable(name);
    if (!value) return NRT_SUCCESS;
    const auto count = number<std::uint64_t>(*value);
    if (!count || *count == 0) return invalid(fn, std::string(name) + " must be a whole number above 0");
    max_events = *count;
    return NRT_SUCCESS;
}

} // namespace

NRT_STATUS inspect_from_environment(const char* fn, inspect_request& request) {
    request = {};
    request.source = inspect_source::environment;
    auto& s = request.settings;
    if (const auto status = read_flag(fn, "NEURON_RT_INSPECT_ENABLE", s.enable_inspect); status != NRT_SUCCESS)
        return status;
    if (!s.enable_inspect) {
        s.activities.reset();
        return NRT_SUCCESS;
    }
    s.output_dir = variable("NEURON_RT_INSPECT_OUTPUT_DIR").value_or(s.output_dir);
    // In order, up to the first refused: one log line per call.
    const std::function<NRT_STATUS()> steps[] = {
        [&] { return read_activity(fn, "NEURON_RT_INSPECT_SYSTEM_PROFILE", activity::system_profile, true, s); },
        [&] { return read_device_profile(fn, s); },
        [&] { return read_activity(fn, "NEURON_RT_INSPECT_HOST_MEMORY", activity::host_memory, false, s); },
        [&] { return read_activity(fn, "NEURON_RT_INSPECT_CPU_UTIL", activity::cpu_util, false, s); },
        [&] { return read_flag(fn, "NEURON_RT_INSPECT_ON_FAIL", s.enable_inspect_on_fail); },
        [&] { return read_nc_filter(fn, "NEURON_RT_INSPECT_EVENT_FILTER_NC", s.capture); },
        [&] { return read_type_filter(fn, "NEURON_RT_INSPECT_EVENT_FILTER_TYPE", s.capture.types); },
        [&] { return read_max_events(fn, s.capture.max_events_per_nc); },
        [&] { return read_flag(fn, "NEURON_RT_INSPECT_PRECACHE_ENABLE", request.precache); },
        [&] { return read_flag(fn, "NEURON_RT_ENABLE_DGE_NOTIFICATIONS", request.dge_notifications); },
    };
    for (const auto& step : steps) {
        if (const auto status = step(); status != NRT_SUCCESS) return status;
    }
    return NRT_SUCCESS;
}

} // namespace neuron::shim
