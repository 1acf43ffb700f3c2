// System-trace capture and fetch (reference/nrt-api-surface.md §10). The
// capture may start before nrt_init and outlives nrt_close: it records the
// calls made meanwhile, whatever they return, until nrt_sys_trace_stop.

#include "nrt/nrt_sys_trace.h"

#include "api.h"
#include "sys_trace.h"

#include <cstdlib>
#include <cstring>

using namespace neuron::shim;
namespace st = neuron::shim::sys_trace;

struct nrt_sys_trace_config {
    st::capture_settings settings;
};

struct nrt_sys_trace_fetch_options {
    st::fetch_filter filter;
};

namespace {

void ignored(const char* fn) { log_error(fn, "options is NULL: nothing set"); }

std::vector<const char*> type_names(const st::type_set& types) {
    std::vector<const char*> names;
    for (const auto& row : st::event_types) {
        if (types.test(static_cast<std::size_t>(row.type))) names.push_back(row.name);
    }
    return names;
}

} // namespace

namespace neuron::shim::sys_trace {

NRT_STATUS copy_names(const char* fn, const std::vector<const char*>& names, const char*** out, std::size_t* count) {
    if (out == nullptr || count == nullptr) return invalid(fn, "the array and count pointers must not be NULL");
    auto** array = static_cast<const char**>(std::calloc(names.size() + 1, sizeof(char*)));
    if (array == nullptr) return NRT_RESOURCE;
    for (std::size_t i = 0; i < names.size(); ++i) {
        array[i] = ::strdup(names[i]);
        if (array[i] == nullptr) {
            free_names(array, i);
            return NRT_RESOURCE;
        }
    }
    *out = array;
    *count = names.size();
    return NRT_SUCCESS;
}

void free_names(const char** names, std::size_t count) {
    if (names == nullptr) return;
    for (std::size_t i = 0; i < count; ++i) std::free(const_cast<char*>(names[i]));
    std::free(static_cast<void*>(names));
}

} // namespace neuron::shim::sys_trace

// ---- capture configuration

NRT_API NRT_STATUS nrt_sys_trace_config_allocate(nrt_sys_trace_config_t** options) {
    const char* fn = "nrt_sys_trace_config_allocate";
    if (options == nullptr) return invalid(fn, "options is NULL");
    return guarded(fn, [&] {
        *options = new nrt_sys_trace_config;
        return NRT_SUCCESS;
    });
}

NRT_API void nrt_sys_trace_config_set_defaults(nrt_sys_trace_config_t* options) {
    if (options == nullptr) return ignored("nrt_sys_trace_config_set_defaults");
    options->settings = {};
}

NRT_API void nrt_sys_trace_config_free(nrt_sys_trace_config_t* options) { delete options; }

NRT_API void nrt_sys_trace_config_set_max_events_per_nc(nrt_sys_trace_config_t* options, uint64_t max_events_per_nc) {
    const char* fn = "nrt_sys_trace_config_set_max_events_per_nc";
    if (options == nullptr) return ignored(fn);
    if (max_events_per_nc == 0) {
        return log_error(fn, "a ring of 0 events holds nothing: the capacity stays " +
                                 std::to_string(options->settings.max_events_per_nc));
    }
    options->settings.max_events_per_nc = max_events_per_nc;
}

NRT_API void nrt_sys_trace_config_set_capture_enabled_for_nc(nrt_sys_trace_config_t* options, uint32_t nc_idx,
                                                             bool enabled) {
    if (options == nullptr) return ignored("nrt_sys_trace_config_set_capture_enabled_for_nc");
    guarded("nrt_sys_trace_config_set_capture_enabled_for_nc", [&] {
        options->settings.nc_overrides[nc_idx] = enabled;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_sys_trace_config_set_capture_enabled_for_event_type(nrt_sys_trace_config_t* options,
                                                                           const char* event_type, bool enabled) {
    const char* fn = "nrt_sys_trace_config_set_capture_enabled_for_event_type";
    if (options == nullptr || event_type == nullptr) return invalid(fn, "options and event_type must not be NULL");
    const auto type = st::event_type_named(event_type);
    if (!type) {
        return invalid(fn, "unknown event type '" + st::printable(event_type) +
                               "' (nrt_sys_trace_get_event_types lists them)");
    }
    options->settings.types.set(static_cast<std::size_t>(*type), enabled);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_sys_trace_get_event_types(const char*** event_types, size_t* count) {
    const char* fn = "nrt_sys_trace_get_event_types";
    return guarded(fn, [&] { return st::copy_names(fn, type_names(st::type_set().set()), event_types, count); });
}

NRT_API void nrt_sys_trace_free_event_types(const char** event_types, size_t count) {
    st::free_names(event_types, count);
}

NRT_API NRT_STATUS nrt_sys_trace_config_get_enabled_event_types(nrt_sys_trace_config_t* options,
                                                                const char*** event_types, size_t* count) {
    const char* fn = "nrt_sys_trace_config_get_enabled_event_types";
    if (options == nullptr) return invalid(fn, "options is NULL");
    return guarded(fn, [&] { return st::copy_names(fn, type_names(options->settings.types), event_types, count); });
}

// ---- capture control

NRT_API NRT_STATUS nrt_sys_trace_start(nrt_sys_trace_config_t* options) {
    const char* fn = "nrt_sys_trace_start";
    if (options == nullptr) return invalid(fn, "options is NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto other = st::start(st::capture_owner::sys_trace, options->settings)) {
            return invalid(fn, std::string("a capture is already running (") + st::starter_of(*other) +
                                   "): one per process");
        }
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_sys_trace_stop(void) {
    const char* fn = "nrt_sys_trace_stop";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (st::stop(st::capture_owner::sys_trace)) return NRT_SUCCESS;
        const auto other = st::running();
        if (other) return invalid(fn, std::string("the running capture belongs to ") + st::starter_of(*other));
        return invalid(fn, "no capture is running (nrt_sys_trace_start starts one)");
    });
}

// ---- fetch

NRT_API NRT_STATUS nrt_sys_trace_fetch_options_allocate(nrt_sys_trace_fetch_options_t** options) {
    const char* fn = "nrt_sys_trace_fetch_options_allocate";
    if (options == nullptr) return invalid(fn, "options is NULL");
    return guarded(fn, [&] {
        *options = new nrt_sys_trace_fetch_options;
        return NRT_SUCCESS;
    });
}

NRT_API void nrt_sys_trace_fetch_options_set_defaults(nrt_sys_trace_fetch_options_t* options) {
    if (options == nullptr) return ignored("nrt_sys_trace_fetch_options_set_defaults");
    options->filter = {};
}

NRT_API void nrt_sys_trace_fetch_options_free(nrt_sys_trace_fetch_options_t* options) { delete options; }

NRT_API void nrt_sys_trace_fetch_options_set_max_events_per_nc(nrt_sys_trace_fetch_options_t* options,
                                                               uint64_t max_events_per_nc) {
    if (options == nullptr) return ignored("nrt_sys_trace_fetch_options_set_max_events_per_nc");
    options->filter.max_events_per_nc = max_events_per_nc;
}

NRT_API void nrt_sys_trace_fetch_options_set_nc_idx(nrt_sys_trace_fetch_options_t* options, uint64_t nc_idx) {
    if (options == nullptr) return ignored("nrt_sys_trace_fetch_options_set_nc_idx");
    options->filter.nc_idx = nc_idx;
}

NRT_API NRT_STATUS nrt_sys_trace_fetch_events(char** buffer, size_t* written_size,
                                              const nrt_sys_trace_fetch_options_t* options) {
    const char* fn = "nrt_sys_trace_fetch_events";
    if (buffer == nullptr || written_size == nullptr) return invalid(fn, "buffer and written_size must not be NULL");
    if (*buffer != nullptr) return invalid(fn, "*buffer must be NULL on entry (it receives a new buffer)");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (!st::running()) log(log_level::warning, fn, "no capture is running: no events");
        const auto json = st::fetch_json(options != nullptr ? options->filter : st::fetch_filter{});
        auto* copy = static_cast<char*>(std::malloc(json.size() + 1));
        if (copy == nullptr) return NRT_RESOURCE;
        std::memcpy(copy, json.c_str(), json.size() + 1);
        *buffer = copy;
        *written_size = json.size();
        return NRT_SUCCESS;
    });
}

NRT_API void nrt_sys_trace_buffer_free(char* buffer) { std::free(buffer); }
