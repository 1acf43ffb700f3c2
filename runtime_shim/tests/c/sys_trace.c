/*
 * The system trace as an application uses it: the event types and config
 * defaults, a capture started before nrt_init, the add model run on cores 0
 * and 1, fetches by core, with a cap and again (drained), a small ring, a
 * capture across nrt_close; inspect capturing the same trace.
 *
 * usage: sys_trace events MODEL_FILE    (a runtime with logical cores 0 and 1)
 *        sys_trace inspect MODEL_FILE   (the harness sets NEURON_RT_INSPECT_*
 *                                        for the environment-driven part)
 *        sys_trace begin                (nrt_inspect_begin only, then whether
 *                                        nrt_sys_trace_start finds the capture free)
 *        sys_trace instance_dir DIR     (nrt_inspect_get_instance_output_dir)
 *
 * Says "json NAME {...}" for each fetch, "FAIL ..." for each broken
 * expectation, "checks N failed F" at the end; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trace_common.h"

#include <unistd.h>

static void say_event_types(void) {
    const char** types = NULL;
    size_t count = 0;
    CHECK_OK(nrt_sys_trace_get_event_types(&types, &count));
    say_names("types", types, count);
    /* The library's own free function. */
    CHECK_OK(nrt_sys_trace_get_event_types(&types, &count));
    nrt_sys_trace_free_event_types(types, count);
}

static void say_enabled(const char* name, nrt_sys_trace_config_t* config) {
    const char** types = NULL;
    size_t count = 0;
    CHECK_OK(nrt_sys_trace_config_get_enabled_event_types(config, &types, &count));
    say_names(name, types, count);
}

static void say_config_defaults(void) {
    nrt_sys_trace_config_t* config = NULL;
    CHECK_OK(nrt_sys_trace_config_allocate(&config));
    if (config == NULL) return;
    say_enabled("enabled_default", config);
    CHECK_OK(nrt_sys_trace_config_set_capture_enabled_for_event_type(config, "nrt_tensor_read", false));
    CHECK_OK(nrt_sys_trace_config_set_capture_enabled_for_event_type(config, "hw_notify", false));
    say_enabled("enabled_two_off", config);
    nrt_sys_trace_config_set_defaults(config);
    say_enabled("enabled_reset", config);
    nrt_sys_trace_config_free(config);
}

/* Starts a capture and frees its config at once (as nkipy does). */
static void start_capture(uint64_t max_events_per_nc, int disabled_nc, const char* disabled_type) {
    nrt_sys_trace_config_t* config = NULL;
    CHECK_OK(nrt_sys_trace_config_allocate(&config));
    if (config == NULL) return;
    if (max_events_per_nc > 0) nrt_sys_trace_config_set_max_events_per_nc(config, max_events_per_nc);
    if (disabled_nc >= 0) nrt_sys_trace_config_set_capture_enabled_for_nc(config, (uint32_t)disabled_nc, false);
    if (disabled_type != NULL) {
        CHECK_OK(nrt_sys_trace_config_set_capture_enabled_for_event_type(config, disabled_type, false));
    }
    CHECK_OK(nrt_sys_trace_start(config));
    nrt_sys_trace_config_free(config);
}

static int events(const char* model_path) {
    say_event_types();
    say_config_defaults();

    /* Capture 1, from before nrt_init: every core and type but nrt_tensor_copy. */
    start_capture(0, -1, "nrt_tensor_copy");
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) {
        SAY("FAIL nrt_init");
        return 2;
    }
    add_model m0, m1;
    if (!load_add(model_path, 0, &m0) || !load_add(model_path, 1, &m1)) return finish_checks() + 1;
    run_add(&m0);
    run_add(&m1);
    CHECK_OK(nrt_tensor_copy(m0.a, 0, m0.b, 0, add_bytes));

    nrt_sys_trace_fetch_options_t* options = NULL;
    CHECK_OK(nrt_sys_trace_fetch_options_allocate(&options));
    if (options == NULL) return finish_checks() + 1;
    nrt_sys_trace_fetch_options_set_nc_idx(options, 1);
    say_fetch("core1", options);
    nrt_sys_trace_fetch_options_set_defaults(options);
    nrt_sys_trace_fetch_options_set_max_events_per_nc(options, 2);
    say_fetch("capped", options);
    nrt_sys_trace_fetch_options_free(options);
    say_fetch("rest", NULL);
    say_fetch("again", NULL);
    CHECK_OK(nrt_sys_trace_stop());

    /* Capture 2: rings of 4 events, core 1 off. */
    start_capture(4, 1, NULL);
    float value = 1;
    for (int i = 0; i < 5; ++i) CHECK_OK(nrt_tensor_write(m0.a, &value, 0, sizeof value));
    CHECK_OK(nrt_tensor_write(m1.a, &value, 0, sizeof value));
    say_fetch("ring", NULL);
    CHECK_OK(nrt_sys_trace_stop());

    /* Capture 3 outlives nrt_close. */
    start_capture(0, -1, NULL);
    free_add(&m0);
    free_add(&m1);
    nrt_close();
    say_fetch("closed", NULL);
    CHECK_OK(nrt_sys_trace_stop());
    return finish_checks();
}

static int inspect(const char* model_path) {
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) {
        SAY("FAIL nrt_init");
        return 2;
    }
    add_model m0, m1;
    if (!load_add(model_path, 0, &m0) || !load_add(model_path, 1, &m1)) return finish_checks() + 1;

    /* With options: core 1 and nrt_tensor_write off. */
    nrt_inspect_config_t* config = NULL;
    CHECK_OK(nrt_inspect_config_allocate(&config));
    if (config == NULL) return finish_checks() + 1;
    CHECK_OK(nrt_inspect_config_set_enable_inspect(config, true));
    CHECK_OK(nrt_inspect_config_set_capture_enabled_for_nc(config, 1, false));
    CHECK_OK(nrt_inspect_config_set_capture_enabled_for_event_type_string(config, "nrt_tensor_write", false));
    EXPECT("inspect_begin_options", nrt_inspect_begin_with_options(config), NRT_SUCCESS);
    CHECK_OK(nrt_inspect_config_free(config));
    nrt_sys_trace_config_t* trace = NULL;
    CHECK_OK(nrt_sys_trace_config_allocate(&trace));
    EXPECT("trace_start_during_inspect", nrt_sys_trace_start(trace), NRT_INVALID);
    nrt_sys_trace_config_free(trace);
    run_add(&m0);
    run_add(&m1);
    say_fetch("inspect_options", NULL);
    EXPECT("trace_stop_during_inspect", nrt_sys_trace_stop(), NRT_INVALID);
    EXPECT("inspect_stop_options", nrt_inspect_stop(), NRT_SUCCESS);

    /* From the environment. */
    EXPECT("inspect_begin_env", nrt_inspect_begin(), NRT_SUCCESS);
    run_add(&m0);
    run_add(&m1);
    say_fetch("inspect_env", NULL);
    EXPECT("inspect_stop_env", nrt_inspect_stop(), NRT_SUCCESS);
    say_fetch("after_inspect", NULL);

    free_add(&m0);
    free_add(&m1);
    nrt_close();
    return finish_checks();
}

static int instance_dir(const char* dir) {
    char path[512];
    MARK("instance_dir");
    const NRT_STATUS s = nrt_inspect_get_instance_output_dir(dir, path, sizeof path);
    SAY("instance_dir %s %s", nrt_get_status_as_str(s), s == NRT_SUCCESS ? path : "-");
    SAY("pid %d", (int)getpid());
    return 0;
}

static int begin_only(void) {
    MARK("inspect_begin");
    const NRT_STATUS begun = nrt_inspect_begin();
    SAY("inspect_begin %s", nrt_get_status_as_str(begun));
    nrt_sys_trace_config_t* trace = NULL;
    CHECK_OK(nrt_sys_trace_config_allocate(&trace));
    MARK("trace_start");
    const NRT_STATUS started = nrt_sys_trace_start(trace);
    SAY("trace_start %s", nrt_get_status_as_str(started));
    nrt_sys_trace_config_free(trace);
    if (started == NRT_SUCCESS) CHECK_OK(nrt_sys_trace_stop());
    if (begun == NRT_SUCCESS) CHECK_OK(nrt_inspect_stop());
    return finish_checks();
}

int main(int argc, char** argv) {
    if (argc >= 3 && strcmp(argv[1], "events") == 0) return events(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "inspect") == 0) return inspect(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "instance_dir") == 0) return instance_dir(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "begin") == 0) return begin_only();
    fprintf(stderr, "usage: sys_trace events|inspect MODEL_FILE, sys_trace instance_dir DIR, sys_trace begin\n");
    return 64;
}
