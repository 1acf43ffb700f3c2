// Device profiles, continuous profiling, profile sessions and inspect
// (reference/nrt-api-surface.md §9, §13): checked and kept in
// profile_requests, which writes the profile files.
// The inspect configuration calls are in api_inspect_config.cpp.

#include "nrt/nrt_experimental.h"
#include "nrt/nrt_profile.h"

#include "api.h"
#include "execution.h"
#include "execution_units.h"
#include "implicit_async.h"
#include "objects.h"
#include "profile_files.h"
#include "profile_requests.h"
#include "runtime.h"

#include <cstring>
#include <unistd.h>

using namespace neuron::shim;

namespace {

bool empty(const char* text) { return text == nullptr || *text == '\0'; }

} // namespace

// ---- per-model profiling

NRT_API NRT_STATUS nrt_profile_start(nrt_model_t* model, const char* filename) {
    const char* fn = "nrt_profile_start";
    if (empty(filename)) return invalid(fn, "filename is NULL or empty");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (const auto status = check_model(fn, model); status != NRT_SUCCESS) return status;
        return profile_requests::get().start_model_profile(fn, {model->id, model->vnc, model->name, filename});
    });
}

NRT_API NRT_STATUS nrt_profile_stop(const char* filename) {
    const char* fn = "nrt_profile_stop";
    if (empty(filename)) return invalid(fn, "filename is NULL or empty");
    return guarded(fn, [&] { return profile_requests::get().stop_model_profile(fn, filename); });
}

// ---- continuous profiling

NRT_API NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t** options) {
    const char* fn = "nrt_profile_continuous_options_allocate";
    if (options == nullptr) return invalid(fn, "options is NULL");
    return guarded(fn, [&] {
        *options = new nrt_profile_continuous_options;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t* options) {
    delete options;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t* options,
                                                                 const char* output_dir) {
    const char* fn = "nrt_profile_continuous_options_set_output_dir";
    if (options == nullptr || empty(output_dir)) return invalid(fn, "options is NULL or output_dir NULL or empty");
    return guarded(fn, [&] {
        options->output_dir = output_dir;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t* options) {
    const char* fn = "nrt_profile_continuous_start";
    if (options == nullptr) return invalid(fn, "options is NULL");
    // The header: it refuses to start while execution is asynchronous (the
    // implicit mode, or the nrta_* API in use).
    if (implicit_async_limit(fn) || units_in_use()) {
        return invalid(fn, "execution is asynchronous: continuous profiling cannot start");
    }
    return guarded(fn, [&] { return profile_requests::get().start_continuous(fn, options->output_dir); });
}

NRT_API NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t* options) {
    const char* fn = "nrt_profile_continuous_save";
    if (options == nullptr) return invalid(fn, "options is NULL");
    return guarded(fn, [&] { return profile_requests::get().save_continuous(fn, vnc, options->output_dir); });
}

NRT_API NRT_STATUS nrt_profile_continuous_stop(void) {
    const char* fn = "nrt_profile_continuous_stop";
    return guarded(fn, [&] { return profile_requests::get().stop_continuous(fn); });
}

// ---- profile sessions

NRT_API NRT_STATUS nrt_profile_session_start(int32_t vnc) {
    const char* fn = "nrt_profile_session_start";
    return guarded(fn, [&] { return profile_requests::get().start_session(fn, vnc); });
}

NRT_API NRT_STATUS nrt_profile_session_stop(int32_t vnc, uint64_t* session_id) {
    const char* fn = "nrt_profile_session_stop";
    if (session_id == nullptr) return invalid(fn, "session_id is NULL");
    return guarded(fn, [&] { return profile_requests::get().stop_session(fn, vnc, *session_id); });
}

NRT_API NRT_STATUS nrt_profile_session_serialize(uint64_t session_id, const char* filename) {
    const char* fn = "nrt_profile_session_serialize";
    if (empty(filename)) return invalid(fn, "filename is NULL or empty");
    return guarded(fn, [&] { return profile_requests::get().serialize_session(fn, session_id, filename); });
}

NRT_API NRT_STATUS nrt_profile_session_drop(uint64_t session_id) {
    const char* fn = "nrt_profile_session_drop";
    return guarded(fn, [&] { return profile_requests::get().drop_session(fn, session_id); });
}

NRT_API NRT_STATUS nrt_profile_session_drop_all(int32_t vnc) {
    const char* fn = "nrt_profile_session_drop_all";
    return guarded(fn, [&] { return profile_requests::get().drop_sessions(fn, vnc); });
}

// ---- inspect

NRT_API NRT_STATUS nrt_inspect_begin(void) {
    const char* fn = "nrt_inspect_begin";
    return guarded(fn, [&]() -> NRT_STATUS {
        inspect_request request;
        if (const auto status = inspect_from_environment(fn, request); status != NRT_SUCCESS) return status;
        return profile_requests::get().begin_inspect(fn, request);
    });
}

NRT_API NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t* options) {
    const char* fn = "nrt_inspect_begin_with_options";
    return guarded(fn, [&] {
        inspect_request request;
        if (options != nullptr) request.settings = options->settings;
        return profile_requests::get().begin_inspect(fn, request);
    });
}

NRT_API NRT_STATUS nrt_inspect_stop(void) {
    const char* fn = "nrt_inspect_stop";
    return guarded(fn, [&] { return profile_requests::get().stop_inspect(fn); });
}

NRT_API NRT_STATUS nrt_inspect_get_instance_output_dir(const char* output_dir, char* instance_dir_buf,
                                                       size_t buf_size) {
    const char* fn = "nrt_inspect_get_instance_output_dir";
    if (empty(output_dir) || instance_dir_buf == nullptr) {
        return invalid(fn, "output_dir must be a non-empty string and instance_dir_buf not NULL");
    }
    return guarded(fn, [&]() -> NRT_STATUS {
        const auto id = profile_files::instance_id(fn);
        if (!id) return NRT_FAILURE;
        const auto dir = std::string(output_dir) + "/" + *id + "_pid_" + std::to_string(::getpid());
        if (dir.size() >= buf_size) {
            log_error(fn, "the directory name needs " + std::to_string(dir.size() + 1) + " bytes; the buffer has " +
                              std::to_string(buf_size));
            return NRT_RESOURCE;
        }
        std::memcpy(instance_dir_buf, dir.c_str(), dir.size() + 1);
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_trace_start(bool trace_mem) {
    const char* fn = "nrt_trace_start";
    return guarded(fn, [&] { return profile_requests::get().start_trace(fn, trace_mem); });
}

NRT_API NRT_STATUS nrt_trace_stop(const char* filename) {
    const char* fn = "nrt_trace_stop";
    if (filename == nullptr || *filename == '\0') return invalid(fn, "filename is NULL or empty");
    return guarded(fn, [&] { return profile_requests::get().stop_trace(fn, filename); });
}
