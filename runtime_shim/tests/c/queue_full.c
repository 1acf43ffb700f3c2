/*
 * Refusals a caller retries in a loop, on a stepped-time emulator: a full
 * execution unit (nrta_execute_schedule past its 64 requests) or, with
 * `implicit`, a full implicit queue (nrt_execute past
 * NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS, which the harness sets to 1).
 * Time stands still, so what was queued stays queued while 1000 more calls
 * are refused.
 *
 * usage: queue_full MODEL [implicit]     (dma_add.yaml)
 *
 * Says "refused N in MS ms" (the refusals and how long they took, from the
 * first), then pauses at "advance" for the harness to move time, then
 * "checks N failed F"; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "checks.h"

#include <nrt/nrt_async.h>
#include <nrt/nrt_experimental.h>
#include <time.h>
#include <unistd.h>

enum { bytes = 6 * sizeof(float), retries = 1000 };

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

int main(int argc, char** argv) {
    size_t size = 0;
    const int implicit = argc == 3 && strcmp(argv[2], "implicit") == 0;
    char* file = argc == 2 || implicit ? read_whole_file(argv[1], &size) : NULL;
    if (file == NULL) {
        fprintf(stderr, "usage: queue_full MODEL [implicit]\n");
        return 2;
    }
    nrt_model_t* model = NULL;
    CHECK_OK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
    CHECK_OK(nrt_load(file, size, 0, -1, &model));
    free(file);
    nrt_tensor_t* t[3] = {NULL, NULL, NULL};
    const char* names[3] = {"a", "b", "out"};
    for (int i = 0; i < 3; ++i) CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, bytes, names[i], &t[i]));
    nrt_tensor_set_t *in = NULL, *out = NULL;
    CHECK_OK(nrt_allocate_tensor_set(&in));
    CHECK_OK(nrt_allocate_tensor_set(&out));
    CHECK_OK(nrt_add_tensor_to_tensor_set(in, "a", t[0]));
    CHECK_OK(nrt_add_tensor_to_tensor_set(in, "b", t[1]));
    CHECK_OK(nrt_add_tensor_to_tensor_set(out, "out", t[2]));

    int refused = 0;
    long long started = 0;
    nrta_seq_t last = 0;
    if (implicit) {
        CHECK_OK(nrt_execute(model, in, out)); /* queued: time stands still */
        started = now_ms();
        for (int i = 0; i < retries; ++i) refused += nrt_execute(model, in, out) == NRT_QUEUE_FULL;
    } else {
        int queued = 0;
        NRT_STATUS s = NRT_SUCCESS;
        for (; queued <= 64 && (s = nrta_execute_schedule(model, in, out, 0, NULL, &last)) == NRT_SUCCESS; ++queued) {
            started = now_ms(); /* the next one may be the first refused */
        }
        CHECK(queued == 64 && s == NRT_QUEUE_FULL, "%d queued, then status %d", queued, (int)s);
        refused = s == NRT_QUEUE_FULL;
        nrta_seq_t seq = 0;
        for (int i = 1; i < retries; ++i)
            refused += nrta_execute_schedule(model, in, out, 0, NULL, &seq) == NRT_QUEUE_FULL;
    }
    SAY("refused %d in %lld ms", refused, now_ms() - started);
    CHECK(refused == retries, "%d of %d calls refused", refused, retries);
    pause_at("advance");
    if (implicit) {
        CHECK_OK(nrt_async_drain_queued_execs(0));
    } else {
        bool done = false;
        while (nrta_is_completed(last, &done) == NRT_SUCCESS && !done) usleep(1000);
        CHECK(done, "the last execution never completed");
    }
    nrt_destroy_tensor_set(&in);
    nrt_destroy_tensor_set(&out);
    for (int i = 0; i < 3; ++i) nrt_tensor_free(&t[i]);
    CHECK_OK(nrt_unload(model));
    nrt_close();
    return finish_checks();
}
