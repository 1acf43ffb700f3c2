/*
 * neuron-emu runtime shim: system-trace capture and fetch
 * (reference/nrt-api-surface.md §10).
 *
 * One capture per process records the runtime API calls and executions of
 * the enabled NeuronCores (as this process numbers them) into a ring buffer
 * per core; nrt_sys_trace_fetch_events drains them as JSON:
 *   {"data_version":2,"events":[{"id":..,"event_type":"nrt_execute",
 *     "phase":"start","tracking_id":..,"nc_idx":0,"thread_id":..,
 *     "timestamp_ns":..,"data":{...}}, ...]}
 * A call is a "start" and a "stop" event with one tracking_id; a
 * timestamp_sync_point is one "instant" event. Event-type names come from
 * nrt_sys_trace_get_event_types.
 */
#pragma once

#include "nrt/nrt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nrt_sys_trace_config nrt_sys_trace_config_t;
typedef struct nrt_sys_trace_fetch_options nrt_sys_trace_fetch_options_t;

/* --- capture configuration -------------------------------------------------- */
/* Defaults: every NeuronCore and event type, 1,000,000 events per core. */
NRT_STATUS nrt_sys_trace_config_allocate(nrt_sys_trace_config_t** options);
void nrt_sys_trace_config_set_defaults(nrt_sys_trace_config_t* options);
void nrt_sys_trace_config_free(nrt_sys_trace_config_t* options);
/* Ring capacity per NeuronCore; the oldest events are overwritten. */
void nrt_sys_trace_config_set_max_events_per_nc(nrt_sys_trace_config_t* options, uint64_t max_events_per_nc);
void nrt_sys_trace_config_set_capture_enabled_for_nc(nrt_sys_trace_config_t* options, uint32_t nc_idx, bool enabled);
/* NRT_INVALID for a name nrt_sys_trace_get_event_types does not list. */
NRT_STATUS nrt_sys_trace_config_set_capture_enabled_for_event_type(nrt_sys_trace_config_t* options,
                                                                   const char* event_type, bool enabled);
/* A new array of new strings: free each and the array, or call nrt_sys_trace_free_event_types. */
NRT_STATUS nrt_sys_trace_get_event_types(const char*** event_types, size_t* count);
void nrt_sys_trace_free_event_types(const char** event_types, size_t count);
NRT_STATUS nrt_sys_trace_config_get_enabled_event_types(nrt_sys_trace_config_t* options, const char*** event_types,
                                                        size_t* count);

/* --- capture control -------------------------------------------------------- */
/* Copies what it needs from options (free it right after). One capture per
 * process: NRT_INVALID while one (or inspect) runs. */
NRT_STATUS nrt_sys_trace_start(nrt_sys_trace_config_t* options);
/* Ends the capture and drops the events not fetched. */
NRT_STATUS nrt_sys_trace_stop(void);

/* --- fetch ------------------------------------------------------------------ */
/* Defaults: every NeuronCore, no cap per core. */
NRT_STATUS nrt_sys_trace_fetch_options_allocate(nrt_sys_trace_fetch_options_t** options);
void nrt_sys_trace_fetch_options_set_defaults(nrt_sys_trace_fetch_options_t* options);
void nrt_sys_trace_fetch_options_free(nrt_sys_trace_fetch_options_t* options);
/* At most this many (the oldest) events per NeuronCore; 0: no cap. */
void nrt_sys_trace_fetch_options_set_max_events_per_nc(nrt_sys_trace_fetch_options_t* options,
                                                       uint64_t max_events_per_nc);
void nrt_sys_trace_fetch_options_set_nc_idx(nrt_sys_trace_fetch_options_t* options, uint64_t nc_idx);
/* *buffer must be NULL on entry; it receives a NUL-terminated JSON document
 * (free it with nrt_sys_trace_buffer_free) and *written_size its length
 * without the NUL. Fetched events are never returned again. options may be NULL. */
NRT_STATUS nrt_sys_trace_fetch_events(char** buffer, size_t* written_size,
                                      const nrt_sys_trace_fetch_options_t* options);
void nrt_sys_trace_buffer_free(char* buffer);

#ifdef __cplusplus
}
#endif
