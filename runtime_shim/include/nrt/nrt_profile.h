/*
 * neuron-emu runtime shim: device profiles, continuous profiling and
 * inspect capture (reference/nrt-api-surface.md §9, §13).
 *
 * neuron-emu accepts, checks and keeps these requests, and inspect captures
 * the system trace (nrt_sys_trace.h); it does not write profile files
 * (NTFF, ntrace.pb) yet, and says so in a WARN log line.
 */
#pragma once

#include "nrt/nrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nrt_profile_continuous_options nrt_profile_continuous_options_t;
typedef struct nrt_inspect_config nrt_inspect_config_t;

/* How inspect captures device profiles. The runtime's numeric values are
 * not published: these are neuron-emu's. */
typedef enum nrt_inspect_device_profile_mode {
    NRT_INSPECT_DEVICE_PROFILE_MODE_MODEL = 0,  /* the first execution of each model per core */
    NRT_INSPECT_DEVICE_PROFILE_MODE_SESSION = 1 /* everything per core in one profile */
} nrt_inspect_device_profile_mode_t;

/* --- per-model profiling ---------------------------------------------------- */
NRT_STATUS nrt_profile_start(nrt_model_t* model, const char* filename);
/* filename: the one given to nrt_profile_start. */
NRT_STATUS nrt_profile_stop(const char* filename);

/* --- continuous profiling (default output_dir "./output") -------------------- */
NRT_STATUS nrt_profile_continuous_options_allocate(nrt_profile_continuous_options_t** options);
NRT_STATUS nrt_profile_continuous_options_free(nrt_profile_continuous_options_t* options);
NRT_STATUS nrt_profile_continuous_options_set_output_dir(nrt_profile_continuous_options_t* options,
                                                         const char* output_dir);
NRT_STATUS nrt_profile_continuous_start(nrt_profile_continuous_options_t* options);
/* The profile of the last model executed on vnc. */
NRT_STATUS nrt_profile_continuous_save(uint32_t vnc, nrt_profile_continuous_options_t* options);
NRT_STATUS nrt_profile_continuous_stop(void);

/* --- profile sessions (exported by the runtime, not in its header) ----------- */
NRT_STATUS nrt_profile_session_start(int32_t vnc);
NRT_STATUS nrt_profile_session_stop(int32_t vnc, uint64_t* session_id);
NRT_STATUS nrt_profile_session_serialize(uint64_t session_id, const char* filename);
NRT_STATUS nrt_profile_session_drop(uint64_t session_id);
NRT_STATUS nrt_profile_session_drop_all(int32_t vnc);

/* --- inspect ---------------------------------------------------------------- */
/* Configured by the NEURON_RT_INSPECT_* environment variables only. */
NRT_STATUS nrt_inspect_begin(void);
NRT_STATUS nrt_inspect_stop(void);
/* NULL: the defaults. Ignores the NEURON_RT_INSPECT_* variables. */
NRT_STATUS nrt_inspect_begin_with_options(nrt_inspect_config_t* options);
/* Writes "<output_dir>/<instance-id>_pid_<pid>"; NRT_RESOURCE if buf_size is too small. */
NRT_STATUS nrt_inspect_get_instance_output_dir(const char* output_dir, char* instance_dir_buf, size_t buf_size);

/* Defaults: session id 1, output dir "./output", all four activities, every
 * NeuronCore and event type, enable_inspect and enable_inspect_on_fail off. */
NRT_STATUS nrt_inspect_config_allocate(nrt_inspect_config_t** options);
NRT_STATUS nrt_inspect_config_set_defaults(nrt_inspect_config_t* options);
NRT_STATUS nrt_inspect_config_free(nrt_inspect_config_t* options);
NRT_STATUS nrt_inspect_config_set_session_id(nrt_inspect_config_t* options, int session_id);
NRT_STATUS nrt_inspect_config_set_output_dir(nrt_inspect_config_t* options, const char* output_dir);
NRT_STATUS nrt_inspect_config_set_sys_trace_max_events_per_nc(nrt_inspect_config_t* options,
                                                              uint64_t sys_trace_max_events_per_nc);
NRT_STATUS nrt_inspect_config_set_capture_enabled_for_nc(nrt_inspect_config_t* options, uint32_t nc_idx, bool enabled);
NRT_STATUS nrt_inspect_config_set_capture_enabled_for_event_type_string(nrt_inspect_config_t* options,
                                                                        const char* event_type, bool enabled);
NRT_STATUS nrt_inspect_config_set_enable_inspect(nrt_inspect_config_t* options, bool enable_inspect);
NRT_STATUS nrt_inspect_config_set_enable_inspect_on_fail(nrt_inspect_config_t* options, bool enable_inspect_on_fail);
NRT_STATUS nrt_inspect_config_set_inspect_device_profile_mode(nrt_inspect_config_t* options,
                                                              nrt_inspect_device_profile_mode_t device_profile_mode);
/* "system_profile", "device_profile", "host_memory", "cpu_util", or "all". */
NRT_STATUS nrt_inspect_config_set_activity(nrt_inspect_config_t* options, const char* activity_type, bool enabled);
/* New arrays of new strings: free each and the array, or call nrt_inspect_config_free_activity_types. */
NRT_STATUS nrt_inspect_config_get_all_activity_types(const char*** activity_types, size_t* count);
NRT_STATUS nrt_inspect_config_get_enabled_activity_types(nrt_inspect_config_t* options, const char*** activity_types,
                                                         size_t* count);
void nrt_inspect_config_free_activity_types(const char** activity_types, size_t count);

#ifdef __cplusplus
}
#endif
