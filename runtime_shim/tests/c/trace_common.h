/*
 * What the system-trace and profile test programs share: checks that say
 * "FAIL ..." lines, calls that say "NAME STATUS" after a "== NAME" marker
 * on stderr (the harness finds each call's log lines by it), an add model
 * (runtime_shim/models/add.yaml) on one core with its tensors, and fetches
 * said as "json NAME {...}".
 */
#pragma once

#include "checks.h"

#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>
#include <nrt/nrt_sys_trace.h>

static inline void expect_status(const char* name, NRT_STATUS got, NRT_STATUS expected) {
    ++checks;
    if (got != expected) {
        ++failures;
        SAY("FAIL %s returned %s, expected %s", name, nrt_get_status_as_str(got), nrt_get_status_as_str(expected));
    }
    SAY("%s %s", name, nrt_get_status_as_str(got));
}

/* "NAME STATUS", and a FAIL line first when it is not `expected`. */
#define EXPECT(name, call, expected)                                                                                   \
    do {                                                                                                               \
        MARK(name);                                                                                                    \
        expect_status((name), (call), (expected));                                                                     \
    } while (0)

typedef struct add_model {
    nrt_model_t* model;
    nrt_tensor_t *a, *b, *out;
    nrt_tensor_set_t *inputs, *outputs;
} add_model;

enum { add_bytes = 6 * sizeof(float) };

/* The add model on core `vnc`, with device tensors a, b and out; 0 on failure. */
static inline int load_add(const char* path, int vnc, add_model* m) {
    memset(m, 0, sizeof *m);
    size_t size = 0;
    char* bytes = read_whole_file(path, &size);
    if (bytes == NULL) {
        SAY("FAIL cannot read %s", path);
        return 0;
    }
    NRT_STATUS s = nrt_load(bytes, size, vnc, 1, &m->model);
    free(bytes);
    CHECK(s == NRT_SUCCESS, "nrt_load on core %d: %s", vnc, nrt_get_status_as_str(s));
    if (s != NRT_SUCCESS) return 0;
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, add_bytes, "a", &m->a));
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, add_bytes, "b", &m->b));
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, add_bytes, "out", &m->out));
    CHECK_OK(nrt_allocate_tensor_set(&m->inputs));
    CHECK_OK(nrt_allocate_tensor_set(&m->outputs));
    if (m->a == NULL || m->b == NULL || m->out == NULL || m->inputs == NULL || m->outputs == NULL) return 0;
    CHECK_OK(nrt_add_tensor_to_tensor_set(m->inputs, "a", m->a));
    CHECK_OK(nrt_add_tensor_to_tensor_set(m->inputs, "b", m->b));
    CHECK_OK(nrt_add_tensor_to_tensor_set(m->outputs, "out", m->out));
    return 1;
}

/* Writes a and b, executes, reads out (a + b): five API calls on the model's core. */
static inline void run_add(add_model* m) {
    float a[6], b[6], out[6];
    for (int i = 0; i < 6; ++i) {
        a[i] = (float)(i + 1);
        b[i] = (float)(10 * (i + 1));
        out[i] = 0;
    }
    CHECK_OK(nrt_tensor_write(m->a, a, 0, sizeof a));
    CHECK_OK(nrt_tensor_write(m->b, b, 0, sizeof b));
    CHECK_OK(nrt_execute(m->model, m->inputs, m->outputs));
    CHECK_OK(nrt_tensor_read(m->out, out, 0, sizeof out));
    for (int i = 0; i < 6; ++i) CHECK(out[i] == a[i] + b[i], "out[%d] = %g", i, (double)out[i]);
}

static inline void free_add(add_model* m) {
    if (m->model != NULL) CHECK_OK(nrt_unload(m->model));
    nrt_destroy_tensor_set(&m->inputs);
    nrt_destroy_tensor_set(&m->outputs);
    nrt_tensor_free(&m->a);
    nrt_tensor_free(&m->b);
    nrt_tensor_free(&m->out);
    m->model = NULL;
}

/* Fetches with `options` (NULL: the defaults) and says "json NAME {...}". */
static inline void say_fetch(const char* name, const nrt_sys_trace_fetch_options_t* options) {
    char* buffer = NULL;
    size_t written = 0;
    NRT_STATUS s = nrt_sys_trace_fetch_events(&buffer, &written, options);
    CHECK(s == NRT_SUCCESS, "fetch %s: %s", name, nrt_get_status_as_str(s));
    if (buffer == NULL) return;
    CHECK(strlen(buffer) == written, "written_size %zu, the buffer holds %zu bytes", written, strlen(buffer));
    SAY("json %s %s", name, buffer);
    nrt_sys_trace_buffer_free(buffer);
}

/* Says "NAME n1 n2 ..." and frees the list with free() (the documented alternative). */
static inline void say_names(const char* name, const char** names, size_t count) {
    printf("%s", name);
    for (size_t i = 0; i < count; ++i) printf(" %s", names[i]);
    SAY("%s", "");
    for (size_t i = 0; i < count; ++i) free((void*)names[i]);
    free((void*)names);
}
