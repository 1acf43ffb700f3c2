// The inspect configuration (reference/nrt-api-surface.md §9.4, §13).

#include "nrt/nrt_profile.h"

#include "api.h"
#include "profile_requests.h"

using namespace neuron::shim;
namespace st = neuron::shim::sys_trace;

namespace {

NRT_STATUS no_options(const char* fn) { return invalid(fn, "options is NULL"); }

std::vector<const char*> activity_list(const activity_set& enabled) {
    std::vector<const char*> names;
    for (std::size_t i = 0; i < activity_names.size(); ++i) {
        if (enabled.test(i)) names.push_back(activity_names[i]);
    }
    return names;
}

} // namespace

NRT_API NRT_STATUS nrt_inspect_config_allocate(nrt_inspect_config_t** options) {
    const char* fn = "nrt_inspect_config_allocate";
    if (options == nullptr) return no_options(fn);
    return guarded(fn, [&] {
        *options = new nrt_inspect_config;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_inspect_config_set_defaults(nrt_inspect_config_t* options) {
    if (options == nullptr) return no_options("nrt_inspect_config_set_defaults");
    options->settings = {};
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_free(nrt_inspect_config_t* options) {
    delete options;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_session_id(nrt_inspect_config_t* options, int session_id) {
    if (options == nullptr) return no_options("nrt_inspect_config_set_session_id");
    options->settings.session_id = session_id;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_output_dir(nrt_inspect_config_t* options, const char* output_dir) {
    const char* fn = "nrt_inspect_config_set_output_dir";
    if (options == nullptr || output_dir == nullptr || *output_dir == '\0') {
        return invalid(fn, "options is NULL or output_dir NULL or empty");
    }
    return guarded(fn, [&] {
        options->settings.output_dir = output_dir;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_inspect_config_set_sys_trace_max_events_per_nc(nrt_inspect_config_t* options,
                                                                      uint64_t sys_trace_max_events_per_nc) {
    const char* fn = "nrt_inspect_config_set_sys_trace_max_events_per_nc";
    if (options == nullptr) return no_options(fn);
    if (sys_trace_max_events_per_nc == 0) return invalid(fn, "a ring of 0 events holds nothing");
    options->settings.capture.max_events_per_nc = sys_trace_max_events_per_nc;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_capture_enabled_for_nc(nrt_inspect_config_t* options, uint32_t nc_idx,
                                                                 bool enabled) {
    const char* fn = "nrt_inspect_config_set_capture_enabled_for_nc";
    if (options == nullptr) return no_options(fn);
    return guarded(fn, [&] {
        options->settings.capture.nc_overrides[nc_idx] = enabled;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_inspect_config_set_capture_enabled_for_event_type_string(nrt_inspect_config_t* options,
                                                                                const char* event_type, bool enabled) {
    const char* fn = "nrt_inspect_config_set_capture_enabled_for_event_type_string";
    if (options == nullptr || event_type == nullptr) return invalid(fn, "options and event_type must not be NULL");
    const auto type = st::event_type_named(event_type);
    if (!type) {
        return invalid(fn, "unknown event type '" + st::printable(event_type) +
                               "' (nrt_sys_trace_get_event_types lists them)");
    }
    options->settings.capture.types.set(static_cast<std::size_t>(*type), enabled);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_enable_inspect(nrt_inspect_config_t* options, bool enable_inspect) {
    if (options == nullptr) return no_options("nrt_inspect_config_set_enable_inspect");
    options->settings.enable_inspect = enable_inspect;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_enable_inspect_on_fail(nrt_inspect_config_t* options,
                                                                 bool enable_inspect_on_fail) {
    if (options == nullptr) return no_options("nrt_inspect_config_set_enable_inspect_on_fail");
    options->settings.enable_inspect_on_fail = enable_inspect_on_fail;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_inspect_device_profile_mode(
    nrt_inspect_config_t* options, nrt_inspect_device_profile_mode_t device_profile_mode) {
    const char* fn = "nrt_inspect_config_set_inspect_device_profile_mode";
    const auto mode = raw_value(device_profile_mode); // any int may arrive from C
    if (options == nullptr) return no_options(fn);
    if (mode != NRT_INSPECT_DEVICE_PROFILE_MODE_MODEL && mode != NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION) {
        return invalid(fn, "unknown device profile mode " + std::to_string(mode));
    }
    options->settings.device_profile_mode = static_cast<nrt_inspect_device_profile_mode_t>(mode);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_set_activity(nrt_inspect_config_t* options, const char* activity_type,
                                                   bool enabled) {
    const char* fn = "nrt_inspect_config_set_activity";
    if (options == nullptr || activity_type == nullptr)
        return invalid(fn, "options and activity_type must not be NULL");
    if (std::string_view(activity_type) == "all") {
        options->settings.activities = enabled ? activity_set().set() : activity_set();
        return NRT_SUCCESS;
    }
    const auto a = activity_named(activity_type);
    if (!a) {
        return invalid(fn, "unknown activity type '" + st::printable(activity_type) +
                               "' (system_profile, device_profile, host_memory, cpu_util or all)");
    }
    options->settings.activities.set(static_cast<std::size_t>(*a), enabled);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_inspect_config_get_all_activity_types(const char*** activity_types, size_t* count) {
    const char* fn = "nrt_inspect_config_get_all_activity_types";
    return guarded(fn, [&] { return st::copy_names(fn, activity_list(activity_set().set()), activity_types, count); });
}

NRT_API NRT_STATUS nrt_inspect_config_get_enabled_activity_types(nrt_inspect_config_t* options,
                                                                 const char*** activity_types, size_t* count) {
    const char* fn = "nrt_inspect_config_get_enabled_activity_types";
    if (options == nullptr) return no_options(fn);
    return guarded(
        fn, [&] { return st::copy_names(fn, activity_list(options->settings.activities), activity_types, count); });
}

NRT_API void nrt_inspect_config_free_activity_types(const char** activity_types, size_t count) {
    st::free_names(activity_types, count);
}
