/*
 * What nrt-session and the shim's end-to-end test programs share: reading a model file,
 * talking to the harness one line at a time (stdout lines out, stdin lines
 * in), and formatting tensors. Plain C11 that also compiles as C++17.
 */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/ndebug_stream.h>
#include <nrt/nrt.h>

/* One line to the harness, at once (stdout may be a pipe). */
#define SAY(...)                                                                                                       \
    do {                                                                                                               \
        printf(__VA_ARGS__);                                                                                           \
        putchar('\n');                                                                                                 \
        fflush(stdout);                                                                                                \
    } while (0)

/* A marker on stderr: the harness splits the shim's log lines by them. */
#define MARK(name)                                                                                                     \
    do {                                                                                                               \
        fprintf(stderr, "== %s\n", (name));                                                                            \
        fflush(stderr);                                                                                                \
    } while (0)

/* The next line from the harness, without its newline; 0 at end of input. */
static inline int next_line(char* line, size_t size) {
    if (fgets(line, (int)size, stdin) == NULL) return 0;
    line[strcspn(line, "\r\n")] = '\0';
    return 1;
}

/* Says `checkpoint` and waits until the harness answers with a line. */
static inline void pause_at(const char* checkpoint) {
    char line[64];
    SAY("%s", checkpoint);
    (void)next_line(line, sizeof(line));
}

/* At `name`: waits for the harness when pausing (pause_at), else just says it. */
static inline void checkpoint(int pausing, const char* name) {
    if (pausing) {
        pause_at(name);
    } else {
        SAY("%s", name);
    }
}

/* Returns 1 from the caller, with a FAIL line, unless `call` succeeds. */
#define REQUIRE_OK(call)                                                                                               \
    do {                                                                                                               \
        NRT_STATUS status_ = (call);                                                                                   \
        if (status_ != NRT_SUCCESS) {                                                                                  \
            SAY("FAIL %s returned %s (%d)", #call, nrt_get_status_as_str(status_), (int)status_);                      \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

/* The whole file, malloc'ed (the caller frees it); NULL when unreadable. */
static inline char* read_whole_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t capacity = 4096;
    size_t used = 0;
    char* bytes = (char*)malloc(capacity);
    while (bytes != NULL) {
        used += fread(bytes + used, 1, capacity - used, f);
        if (used < capacity) break;
        capacity *= 2;
        char* bigger = (char*)realloc(bytes, capacity);
        if (bigger == NULL) free(bytes);
        bytes = bigger;
    }
    fclose(f);
    *size = used;
    return bytes;
}

/* Bytes of one element of an nrt_dtype_t, 0 for an unknown one. */
static inline size_t dtype_size(nrt_dtype_t dtype) {
    switch (dtype) {
    case NRT_DTYPE_INT8:
    case NRT_DTYPE_UINT8:
    case NRT_DTYPE_FP8_E3:
    case NRT_DTYPE_FP8_E4:
    case NRT_DTYPE_FP8_E5: return 1;
    case NRT_DTYPE_INT16:
    case NRT_DTYPE_UINT16:
    case NRT_DTYPE_BFLOAT16:
    case NRT_DTYPE_FLOAT16: return 2;
    case NRT_DTYPE_INT32:
    case NRT_DTYPE_UINT32:
    case NRT_DTYPE_FLOAT32:
    case NRT_DTYPE_FP32R: return 4;
    case NRT_DTYPE_INT64:
    case NRT_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

/* Up to `limit` elements of typed data as "a,b,c" (debug-stream dtype names). */
static inline void format_elements(const char* dtype, const void* data, uint64_t bytes, char* out, size_t size,
                                   int limit) {
    const unsigned char* p = (const unsigned char*)data;
    size_t used = 0;
    out[0] = '\0';
    size_t element = 1;
    if (strcmp(dtype, "int32") == 0 || strcmp(dtype, "uint32") == 0 || strcmp(dtype, "float32") == 0) element = 4;
    if (strcmp(dtype, "int64") == 0 || strcmp(dtype, "uint64") == 0) element = 8;
    if (strcmp(dtype, "int16") == 0 || strcmp(dtype, "uint16") == 0) element = 2;
    for (uint64_t at = 0; at + element <= bytes && limit-- > 0 && used + 32 < size; at += element) {
        char item[32];
        if (strcmp(dtype, "float32") == 0) {
            float v;
            memcpy(&v, p + at, sizeof v);
            snprintf(item, sizeof item, "%g", (double)v);
        } else if (strcmp(dtype, "int32") == 0) {
            int32_t v;
            memcpy(&v, p + at, sizeof v);
            snprintf(item, sizeof item, "%d", (int)v);
        } else if (strcmp(dtype, "uint32") == 0) {
            uint32_t v;
            memcpy(&v, p + at, sizeof v);
            snprintf(item, sizeof item, "%u", (unsigned)v);
        } else if (strcmp(dtype, "int64") == 0 || strcmp(dtype, "uint64") == 0) {
            int64_t v;
            memcpy(&v, p + at, sizeof v);
            snprintf(item, sizeof item, "%lld", (long long)v);
        } else {
            snprintf(item, sizeof item, "0x%02x", (unsigned)p[at]);
        }
        used += (size_t)snprintf(out + used, size - used, "%s%s", used == 0 ? "" : ",", item);
    }
}

/* The debug-stream dtype name of an nrt_dtype_t (for format_elements). */
static inline const char* dtype_name(nrt_dtype_t dtype) {
    switch (dtype) {
    case NRT_DTYPE_INT32: return "int32";
    case NRT_DTYPE_UINT32: return "uint32";
    case NRT_DTYPE_FLOAT32: return "float32";
    case NRT_DTYPE_INT64: return "int64";
    case NRT_DTYPE_UINT64: return "uint64";
    case NRT_DTYPE_INT16: return "int16";
    case NRT_DTYPE_UINT16: return "uint16";
    default: return "bytes";
    }
}

/* A debug event's payload as "nc=.. pipe=.. prefix=.. dtype=.. shape=a,b
 * bytes=.. data=..", the form the harness parses. */
static inline void format_event(const void* payload, char* out, size_t size) {
    const ndebug_stream_payload_debug_tensor_read_t* p = (const ndebug_stream_payload_debug_tensor_read_t*)payload;
    char shape[160] = "";
    size_t used = 0;
    for (int d = 0; d < 8 && p->tensor_shape[d] > 0; ++d) {
        used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%llu", d == 0 ? "" : ",",
                                 (unsigned long long)p->tensor_shape[d]);
    }
    char data[400];
    format_elements(p->tensor_dtype, p->tensor_data, p->tensor_data_size, data, sizeof data, 16);
    snprintf(out, size, "nc=%u pipe=%u prefix=%s dtype=%s shape=%s bytes=%llu data=%s", (unsigned)p->logical_nc_id,
             (unsigned)p->pipe, p->prefix, p->tensor_dtype, shape, (unsigned long long)p->tensor_data_size, data);
}

/* The first tensor element of a debug event as an integer (int32, uint32,
 * int64, float32); -1 when there is none. */
static inline long long first_element(const void* payload) {
    const ndebug_stream_payload_debug_tensor_read_t* p = (const ndebug_stream_payload_debug_tensor_read_t*)payload;
    if (strcmp(p->tensor_dtype, "float32") == 0 && p->tensor_data_size >= 4) {
        float v;
        memcpy(&v, p->tensor_data, sizeof v);
        return (long long)v;
    }
    if (strcmp(p->tensor_dtype, "int32") == 0 && p->tensor_data_size >= 4) {
        int32_t v;
        memcpy(&v, p->tensor_data, sizeof v);
        return v;
    }
    if (strcmp(p->tensor_dtype, "uint32") == 0 && p->tensor_data_size >= 4) {
        uint32_t v;
        memcpy(&v, p->tensor_data, sizeof v);
        return v;
    }
    if (strcmp(p->tensor_dtype, "int64") == 0 && p->tensor_data_size >= 8) {
        int64_t v;
        memcpy(&v, p->tensor_data, sizeof v);
        return (long long)v;
    }
    return -1;
}

/* NULL when the event is well formed, else what is wrong with it. */
static inline const char* event_problem(const ndebug_stream_event_header_t* header, const void* payload) {
    const ndebug_stream_payload_debug_tensor_read_t* p = (const ndebug_stream_payload_debug_tensor_read_t*)payload;
    if (payload == NULL) return "no payload";
    if (header->type != NDEBUG_STREAM_EVENT_TYPE_DEBUG_TENSOR_READ) return "type is not DEBUG_TENSOR_READ";
    if (header->data_size != sizeof(ndebug_stream_payload_debug_tensor_read_t) + p->tensor_data_size) {
        return "data_size is not 1024 + tensor_data_size";
    }
    if (memchr(p->prefix, '\0', sizeof p->prefix) == NULL) return "prefix not NUL-terminated";
    if (memchr(p->tensor_dtype, '\0', sizeof p->tensor_dtype) == NULL) return "tensor_dtype not NUL-terminated";
    return NULL;
}
