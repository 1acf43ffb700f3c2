/*
 * The profile and inspect calls: activity lists and config defaults, the
 * instance output directory, a per-model profile (one stopped before any
 * execution too), continuous profiling, a profile session of two
 * executions and inspect around executions of the add model. The harness
 * reads the session files they write into DIR.
 *
 * usage: profile_calls MODEL_FILE DIR    (a runtime with core 0)
 *        profile_calls MODEL_FILE env    (init, two executions, close: for
 *                                         NEURON_RT_INSPECT_* captures)
 *
 * "NAME STATUS" lines after "== NAME" markers, "FAIL ..." for each broken
 * expectation, "checks N failed F" at the end; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trace_common.h"

#include <unistd.h>

static void say_enabled(const char* name, nrt_inspect_config_t* config) {
    const char** names = NULL;
    size_t count = 0;
    CHECK_OK(nrt_inspect_config_get_enabled_activity_types(config, &names, &count));
    say_names(name, names, count);
}

static void activities(void) {
    const char** names = NULL;
    size_t count = 0;
    CHECK_OK(nrt_inspect_config_get_all_activity_types(&names, &count));
    say_names("activities", names, count);
    CHECK_OK(nrt_inspect_config_get_all_activity_types(&names, &count));
    nrt_inspect_config_free_activity_types(names, count);

    nrt_inspect_config_t* config = NULL;
    CHECK_OK(nrt_inspect_config_allocate(&config));
    if (config == NULL) return;
    say_enabled("enabled_default", config);
    CHECK_OK(nrt_inspect_config_set_activity(config, "all", false));
    say_enabled("enabled_none", config);
    CHECK_OK(nrt_inspect_config_set_activity(config, "cpu_util", true));
    CHECK_OK(nrt_inspect_config_set_activity(config, "system_profile", true));
    say_enabled("enabled_two", config);
    CHECK_OK(nrt_inspect_config_set_session_id(config, 3));
    CHECK_OK(nrt_inspect_config_set_inspect_device_profile_mode(config, NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION));
    CHECK_OK(nrt_inspect_config_set_defaults(config));
    say_enabled("enabled_reset", config);
    CHECK_OK(nrt_inspect_config_free(config));
}

static void instance_dir(const char* dir) {
    char path[512];
    CHECK_OK(nrt_inspect_get_instance_output_dir(dir, path, sizeof path));
    SAY("instance_dir %s", path);
    SAY("pid %d", (int)getpid());
    const size_t length = strlen(path);
    EXPECT("instance_dir_exact_buffer", nrt_inspect_get_instance_output_dir(dir, path, length + 1), NRT_SUCCESS);
    EXPECT("instance_dir_one_byte_short", nrt_inspect_get_instance_output_dir(dir, path, length), NRT_RESOURCE);
}

static void profiles(add_model* m, const char* dir) {
    char file[512];
    snprintf(file, sizeof file, "%s/idle.ntff", dir);
    EXPECT("profile_start_idle", nrt_profile_start(m->model, file), NRT_SUCCESS);
    EXPECT("profile_stop_idle", nrt_profile_stop(file), NRT_SUCCESS);
    snprintf(file, sizeof file, "%s/model.ntff", dir);
    EXPECT("profile_start", nrt_profile_start(m->model, file), NRT_SUCCESS);
    run_add(m);
    run_add(m);
    EXPECT("profile_stop", nrt_profile_stop(file), NRT_SUCCESS);

    nrt_profile_continuous_options_t* options = NULL;
    CHECK_OK(nrt_profile_continuous_options_allocate(&options));
    snprintf(file, sizeof file, "%s/continuous", dir);
    CHECK_OK(nrt_profile_continuous_options_set_output_dir(options, file));
    EXPECT("continuous_start", nrt_profile_continuous_start(options), NRT_SUCCESS);
    run_add(m);
    EXPECT("continuous_save", nrt_profile_continuous_save(0, options), NRT_SUCCESS);
    EXPECT("continuous_stop", nrt_profile_continuous_stop(), NRT_SUCCESS);
    CHECK_OK(nrt_profile_continuous_options_free(options));

    uint64_t id = 0;
    EXPECT("session_start", nrt_profile_session_start(0), NRT_SUCCESS);
    run_add(m);
    run_add(m);
    EXPECT("session_stop", nrt_profile_session_stop(0, &id), NRT_SUCCESS);
    SAY("session_id %llu", (unsigned long long)id);
    snprintf(file, sizeof file, "%s/session.ntff", dir);
    EXPECT("session_serialize", nrt_profile_session_serialize(id, file), NRT_SUCCESS);
    EXPECT("session_drop_all", nrt_profile_session_drop_all(0), NRT_SUCCESS);
    EXPECT("session_drop_dropped", nrt_profile_session_drop(id), NRT_INVALID);
}

static void inspect(add_model* m, const char* dir) {
    char file[512];
    snprintf(file, sizeof file, "%s/inspect", dir);
    nrt_inspect_config_t* config = NULL;
    CHECK_OK(nrt_inspect_config_allocate(&config));
    CHECK_OK(nrt_inspect_config_set_output_dir(config, file));
    CHECK_OK(nrt_inspect_config_set_enable_inspect(config, true));
    EXPECT("inspect_begin", nrt_inspect_begin_with_options(config), NRT_SUCCESS);
    CHECK_OK(nrt_inspect_config_free(config));
    nrt_profile_continuous_options_t* options = NULL;
    CHECK_OK(nrt_profile_continuous_options_allocate(&options));
    EXPECT("continuous_during_inspect", nrt_profile_continuous_start(options), NRT_INVALID);
    CHECK_OK(nrt_profile_continuous_options_free(options));
    run_add(m);
    EXPECT("inspect_stop", nrt_inspect_stop(), NRT_SUCCESS);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: profile_calls MODEL_FILE DIR\n       profile_calls MODEL_FILE env\n");
        return 64;
    }
    if (strcmp(argv[2], "env") == 0) {
        if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) {
            SAY("FAIL nrt_init");
            return 2;
        }
        add_model m;
        if (load_add(argv[1], 0, &m)) {
            run_add(&m);
            run_add(&m);
        }
        SAY("pid %d", (int)getpid());
        free_add(&m);
        nrt_close();
        return finish_checks();
    }
    activities();
    instance_dir(argv[2]);
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) {
        SAY("FAIL nrt_init");
        return 2;
    }
    add_model m;
    if (load_add(argv[1], 0, &m)) {
        profiles(&m, argv[2]);
        inspect(&m, argv[2]);
    }
    free_add(&m);
    nrt_close();
    return finish_checks();
}
