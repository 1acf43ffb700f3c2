/*
 * neuron-emu runtime shim: the debug-stream client API
 * (seeds/neuron-debug-stream-api.txt, reference/nrt-api.md §2).
 *
 * One stream per logical NeuronCore the process owns, one client per
 * stream. The fd is pollable (poll, epoll, select) and readable exactly when
 * an event waits; read events only with nrt_debug_client_read_one_event.
 */
#pragma once

#include <nrt/nrt_status.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ndebug_stream_event_type {
    NDEBUG_STREAM_EVENT_TYPE_INVALID = 0,
    NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ = 1,
} ndebug_stream_event_type_t;

typedef struct ndebug_stream_event_header {
    uint64_t data_size; /* payload bytes: the 1024-byte tensor-read struct plus the tensor data */
    uint32_t type;      /* ndebug_stream_event_type_t */
    char reserved[52];
} ndebug_stream_event_header_t;

typedef struct ndebug_stream_payload_debug_tensor_read {
    char prefix[512];          /* the print's prefix */
    uint32_t logical_nc_id;    /* the logical core (as this process numbers them) it came from */
    uint32_t pipe;             /* 0: stdout, otherwise stderr */
    char tensor_dtype[16];     /* lowercase dtype name, NUL-terminated */
    uint64_t tensor_shape[8];  /* unused dimensions are 0 */
    uint64_t tensor_data_size; /* bytes of tensor_data */
    char reserved0[416];
    char tensor_data[];
} ndebug_stream_payload_debug_tensor_read_t;

/* Connects to a logical core's stream. NRT_INVALID for a core this process
 * does not own, or when the stream already has a client. */
NRT_STATUS nrt_debug_client_connect(int logical_nc_idx, int* stream_fd);

void nrt_debug_client_connect_close(int stream_fd);

/* NRT_SUCCESS with one event (the caller frees *payload with free()), or
 * NRT_QUEUE_EMPTY when none waits. */
NRT_STATUS nrt_debug_client_read_one_event(int stream_fd, ndebug_stream_event_header_t* header, void** payload);

#ifdef __cplusplus
}
#endif
