/*
 * Bad arguments into the system-trace and profile calls: NULL pointers,
 * unknown names, a second capture, stops without starts, a fetch into a
 * buffer that is not NULL, requests for cores and sessions that do not
 * exist. Nothing may crash; each call returns the status expected of it
 * (and the harness checks one log line per refusal).
 *
 * usage: trace_bad_input MODEL_FILE DIR   (an add model; a runtime with core 0)
 *
 * For each check: "NAME STATUS" on stdout (a "FAIL ..." line first when it
 * is not the expected one) and "== NAME" on stderr before the call. Ends
 * with "checks N failed F"; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trace_common.h"

static void sys_trace_config_calls(void) {
    const char** names = NULL;
    size_t count = 0;
    nrt_sys_trace_config_t* config = NULL;
    EXPECT("types_null_array", nrt_sys_trace_get_event_types(NULL, &count), NRT_INVALID);
    EXPECT("types_null_count", nrt_sys_trace_get_event_types(&names, NULL), NRT_INVALID);
    EXPECT("config_allocate_null", nrt_sys_trace_config_allocate(NULL), NRT_INVALID);
    EXPECT("enabled_types_null_config", nrt_sys_trace_config_get_enabled_event_types(NULL, &names, &count),
           NRT_INVALID);
    EXPECT("config_allocate", nrt_sys_trace_config_allocate(&config), NRT_SUCCESS);
    EXPECT("enabled_types_null_array", nrt_sys_trace_config_get_enabled_event_types(config, NULL, &count), NRT_INVALID);
    EXPECT("type_null_config", nrt_sys_trace_config_set_capture_enabled_for_event_type(NULL, "nrt_load", true),
           NRT_INVALID);
    EXPECT("type_null_name", nrt_sys_trace_config_set_capture_enabled_for_event_type(config, NULL, true), NRT_INVALID);
    EXPECT("type_unknown", nrt_sys_trace_config_set_capture_enabled_for_event_type(config, "nrt_teleport", false),
           NRT_INVALID);
    EXPECT("type_group_name", nrt_sys_trace_config_set_capture_enabled_for_event_type(config, "hardware", false),
           NRT_INVALID);
    /* The void calls ignore NULL. */
    MARK("void_calls_with_null");
    nrt_sys_trace_config_set_defaults(NULL);
    nrt_sys_trace_config_set_max_events_per_nc(NULL, 10);
    nrt_sys_trace_config_set_capture_enabled_for_nc(NULL, 0, false);
    nrt_sys_trace_config_free(NULL);
    nrt_sys_trace_free_event_types(NULL, 3);
    nrt_sys_trace_fetch_options_set_defaults(NULL);
    nrt_sys_trace_fetch_options_set_max_events_per_nc(NULL, 1);
    nrt_sys_trace_fetch_options_set_nc_idx(NULL, 0);
    nrt_sys_trace_fetch_options_free(NULL);
    nrt_sys_trace_buffer_free(NULL);
    SAY("void_calls_with_null done");

    EXPECT("start_null", nrt_sys_trace_start(NULL), NRT_INVALID);
    EXPECT("stop_without_start", nrt_sys_trace_stop(), NRT_INVALID);
    EXPECT("start", nrt_sys_trace_start(config), NRT_SUCCESS);
    EXPECT("start_again", nrt_sys_trace_start(config), NRT_INVALID);
    nrt_inspect_config_t* inspect = NULL;
    CHECK_OK(nrt_inspect_config_allocate(&inspect));
    CHECK_OK(nrt_inspect_config_set_enable_inspect(inspect, true));
    EXPECT("inspect_during_trace", nrt_inspect_begin_with_options(inspect), NRT_INVALID);
    CHECK_OK(nrt_inspect_config_free(inspect));
    nrt_sys_trace_config_free(config);

    char* buffer = NULL;
    size_t written = 0;
    char taken = 'x';
    EXPECT("fetch_options_allocate_null", nrt_sys_trace_fetch_options_allocate(NULL), NRT_INVALID);
    EXPECT("fetch_null_buffer", nrt_sys_trace_fetch_events(NULL, &written, NULL), NRT_INVALID);
    EXPECT("fetch_null_written", nrt_sys_trace_fetch_events(&buffer, NULL, NULL), NRT_INVALID);
    buffer = &taken;
    EXPECT("fetch_into_a_buffer", nrt_sys_trace_fetch_events(&buffer, &written, NULL), NRT_INVALID);
    CHECK(buffer == &taken, "a refused fetch replaced *buffer");
    EXPECT("stop", nrt_sys_trace_stop(), NRT_SUCCESS);
    EXPECT("stop_again", nrt_sys_trace_stop(), NRT_INVALID);
    buffer = NULL;
    EXPECT("fetch_without_capture", nrt_sys_trace_fetch_events(&buffer, &written, NULL), NRT_SUCCESS);
    if (buffer != NULL) SAY("json no_capture %s", buffer);
    nrt_sys_trace_buffer_free(buffer);
}

static void inspect_config_calls(const char* dir) {
    const char** names = NULL;
    size_t count = 0;
    nrt_inspect_config_t* config = NULL;
    char path[512];
    EXPECT("inspect_allocate_null", nrt_inspect_config_allocate(NULL), NRT_INVALID);
    EXPECT("inspect_defaults_null", nrt_inspect_config_set_defaults(NULL), NRT_INVALID);
    EXPECT("inspect_session_null", nrt_inspect_config_set_session_id(NULL, 2), NRT_INVALID);
    EXPECT("inspect_dir_null_config", nrt_inspect_config_set_output_dir(NULL, dir), NRT_INVALID);
    EXPECT("inspect_max_null", nrt_inspect_config_set_sys_trace_max_events_per_nc(NULL, 5), NRT_INVALID);
    EXPECT("inspect_nc_null", nrt_inspect_config_set_capture_enabled_for_nc(NULL, 0, true), NRT_INVALID);
    EXPECT("inspect_type_null_config",
           nrt_inspect_config_set_capture_enabled_for_event_type_string(NULL, "nrt_load", true), NRT_INVALID);
    EXPECT("inspect_enable_null", nrt_inspect_config_set_enable_inspect(NULL, true), NRT_INVALID);
    EXPECT("inspect_on_fail_null", nrt_inspect_config_set_enable_inspect_on_fail(NULL, true), NRT_INVALID);
    EXPECT("inspect_mode_null",
           nrt_inspect_config_set_inspect_device_profile_mode(NULL, NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION),
           NRT_INVALID);
    EXPECT("inspect_activity_null_config", nrt_inspect_config_set_activity(NULL, "all", true), NRT_INVALID);
    EXPECT("activities_null_array", nrt_inspect_config_get_all_activity_types(NULL, &count), NRT_INVALID);
    EXPECT("enabled_activities_null_config", nrt_inspect_config_get_enabled_activity_types(NULL, &names, &count),
           NRT_INVALID);
    nrt_inspect_config_free_activity_types(NULL, 2);

    EXPECT("inspect_allocate", nrt_inspect_config_allocate(&config), NRT_SUCCESS);
    EXPECT("inspect_dir_null", nrt_inspect_config_set_output_dir(config, NULL), NRT_INVALID);
    EXPECT("inspect_dir_empty", nrt_inspect_config_set_output_dir(config, ""), NRT_INVALID);
    EXPECT("inspect_max_zero", nrt_inspect_config_set_sys_trace_max_events_per_nc(config, 0), NRT_INVALID);
    EXPECT("inspect_type_null_name", nrt_inspect_config_set_capture_enabled_for_event_type_string(config, NULL, true),
           NRT_INVALID);
    EXPECT("inspect_type_unknown",
           nrt_inspect_config_set_capture_enabled_for_event_type_string(config, "nrt_teleport", true), NRT_INVALID);
    EXPECT("inspect_mode_unknown",
           nrt_inspect_config_set_inspect_device_profile_mode(config, (nrt_inspect_device_profile_mode_t)7),
           NRT_INVALID);
    EXPECT("activity_null_name", nrt_inspect_config_set_activity(config, NULL, true), NRT_INVALID);
    EXPECT("activity_unknown", nrt_inspect_config_set_activity(config, "gpu_util", true), NRT_INVALID);
    EXPECT("enabled_activities_null_count", nrt_inspect_config_get_enabled_activity_types(config, &names, NULL),
           NRT_INVALID);
    CHECK_OK(nrt_inspect_config_free(config));

    EXPECT("inspect_stop_without_begin", nrt_inspect_stop(), NRT_INVALID);
    EXPECT("inspect_begin_defaults", nrt_inspect_begin_with_options(NULL), NRT_SUCCESS);
    EXPECT("inspect_begin_again", nrt_inspect_begin_with_options(NULL), NRT_INVALID);
    EXPECT("inspect_stop", nrt_inspect_stop(), NRT_SUCCESS);

    EXPECT("instance_dir_null_dir", nrt_inspect_get_instance_output_dir(NULL, path, sizeof path), NRT_INVALID);
    EXPECT("instance_dir_empty_dir", nrt_inspect_get_instance_output_dir("", path, sizeof path), NRT_INVALID);
    EXPECT("instance_dir_null_buffer", nrt_inspect_get_instance_output_dir(dir, NULL, sizeof path), NRT_INVALID);
    EXPECT("instance_dir_small_buffer", nrt_inspect_get_instance_output_dir(dir, path, 8), NRT_RESOURCE);
}

static void profile_calls(nrt_model_t* model, const char* dir) {
    char file[512];
    snprintf(file, sizeof file, "%s/model.ntff", dir);
    EXPECT("profile_start_null_model", nrt_profile_start(NULL, file), NRT_INVALID);
    EXPECT("profile_start_null_file", nrt_profile_start(model, NULL), NRT_INVALID);
    EXPECT("profile_start_empty_file", nrt_profile_start(model, ""), NRT_INVALID);
    EXPECT("profile_stop_null_file", nrt_profile_stop(NULL), NRT_INVALID);
    EXPECT("profile_stop_without_start", nrt_profile_stop(file), NRT_INVALID);
    EXPECT("profile_start", nrt_profile_start(model, file), NRT_SUCCESS);
    EXPECT("profile_start_same_file", nrt_profile_start(model, file), NRT_INVALID);
    EXPECT("profile_start_same_model", nrt_profile_start(model, "other.ntff"), NRT_INVALID);
    EXPECT("profile_stop_other_file", nrt_profile_stop("other.ntff"), NRT_INVALID);
    EXPECT("profile_stop", nrt_profile_stop(file), NRT_SUCCESS);
    EXPECT("profile_stop_again", nrt_profile_stop(file), NRT_INVALID);

    nrt_profile_continuous_options_t* options = NULL;
    EXPECT("continuous_allocate_null", nrt_profile_continuous_options_allocate(NULL), NRT_INVALID);
    EXPECT("continuous_allocate", nrt_profile_continuous_options_allocate(&options), NRT_SUCCESS);
    EXPECT("continuous_dir_null_options", nrt_profile_continuous_options_set_output_dir(NULL, dir), NRT_INVALID);
    EXPECT("continuous_dir_null", nrt_profile_continuous_options_set_output_dir(options, NULL), NRT_INVALID);
    EXPECT("continuous_dir_empty", nrt_profile_continuous_options_set_output_dir(options, ""), NRT_INVALID);
    EXPECT("continuous_start_null", nrt_profile_continuous_start(NULL), NRT_INVALID);
    EXPECT("continuous_save_before_start", nrt_profile_continuous_save(0, options), NRT_INVALID);
    EXPECT("continuous_stop_without_start", nrt_profile_continuous_stop(), NRT_INVALID);
    EXPECT("continuous_start", nrt_profile_continuous_start(options), NRT_SUCCESS);
    EXPECT("continuous_start_again", nrt_profile_continuous_start(options), NRT_INVALID);
    EXPECT("continuous_save_null", nrt_profile_continuous_save(0, NULL), NRT_INVALID);
    EXPECT("continuous_save_other_core", nrt_profile_continuous_save(99, options), NRT_INVALID);
    EXPECT("continuous_stop", nrt_profile_continuous_stop(), NRT_SUCCESS);
    CHECK_OK(nrt_profile_continuous_options_free(options));

    uint64_t id = 0;
    EXPECT("session_start_negative_core", nrt_profile_session_start(-1), NRT_INVALID);
    EXPECT("session_start_other_core", nrt_profile_session_start(99), NRT_INVALID);
    EXPECT("session_start", nrt_profile_session_start(0), NRT_SUCCESS);
    EXPECT("session_start_again", nrt_profile_session_start(0), NRT_INVALID);
    EXPECT("session_stop_null_id", nrt_profile_session_stop(0, NULL), NRT_INVALID);
    EXPECT("session_serialize_running", nrt_profile_session_serialize(1, file), NRT_INVALID);
    EXPECT("session_drop_running", nrt_profile_session_drop(1), NRT_INVALID);
    EXPECT("session_stop_other_core", nrt_profile_session_stop(5, &id), NRT_INVALID);
    EXPECT("session_stop", nrt_profile_session_stop(0, &id), NRT_SUCCESS);
    EXPECT("session_serialize_null_file", nrt_profile_session_serialize(id, NULL), NRT_INVALID);
    EXPECT("session_serialize_unknown", nrt_profile_session_serialize(id + 100, file), NRT_INVALID);
    EXPECT("session_drop_unknown", nrt_profile_session_drop(id + 100), NRT_INVALID);
    EXPECT("session_drop_all_negative_core", nrt_profile_session_drop_all(-1), NRT_INVALID);
    EXPECT("session_drop", nrt_profile_session_drop(id), NRT_SUCCESS);
    EXPECT("session_drop_again", nrt_profile_session_drop(id), NRT_INVALID);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: trace_bad_input MODEL_FILE DIR\n");
        return 64;
    }
    sys_trace_config_calls();
    inspect_config_calls(argv[2]);
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) {
        SAY("FAIL nrt_init");
        return 2;
    }
    add_model m;
    if (load_add(argv[1], 0, &m)) profile_calls(m.model, argv[2]);
    free_add(&m);
    nrt_close();
    return finish_checks();
}
