/*
 * The asynchronous API end to end on a stepped-time emulator: writes, three
 * executions and a read scheduled on their execution units, observed through
 * sequence numbers, a completion fd and the error tracker; the 3.0 form of
 * nrta_execute_schedule (NRT_3.0.0) writes its status when it completes; a
 * DMA abort kills the compute unit. The harness moves time at each pause.
 *
 * usage: async_exec MODEL     (dma_add.yaml: out = a + b on float32 2x3, with DMA)
 *
 * Pauses (the harness answers each with a line): "advance" (move time past
 * the executions), "inject" (arm a DMA abort on device 0 core 0).
 * Says "FAIL ..." for each broken expectation and "checks N failed F" at the
 * end; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "checks.h"

#include <dlfcn.h>
#include <nrt/nrt_async.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>
#include <poll.h>
#include <unistd.h>

enum { elements = 6, bytes = elements * sizeof(float) };

typedef NRT_STATUS (*tensor_write_v3)(nrt_tensor_t*, const void*, uint64_t, uint64_t, int, int, NRT_STATUS*,
                                      nrta_seq_t*);
typedef NRT_STATUS (*execute_schedule_v3)(nrt_model_t*, const nrt_tensor_set_t*, nrt_tensor_set_t*, int, NRT_STATUS*,
                                          nrta_seq_t*);

static nrt_tensor_t* device_tensor(const char* name) {
    nrt_tensor_t* t = NULL;
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, bytes, name, &t));
    return t;
}

static int readable(int fd, int timeout_ms) {
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static int completed(nrta_seq_t seq) {
    bool done = false;
    CHECK_OK(nrta_is_completed(seq, &done));
    return done;
}

int main(int argc, char** argv) {
    size_t size = 0;
    char* file = argc == 2 ? read_whole_file(argv[1], &size) : NULL;
    if (file == NULL) {
        fprintf(stderr, "usage: async_exec MODEL\n");
        return 2;
    }
    nrt_model_t* model = NULL;
    CHECK_OK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
    CHECK_OK(nrt_load(file, size, 0, -1, &model));
    free(file);
    nrt_tensor_t *a = device_tensor("a"), *b = device_tensor("b"), *out = device_tensor("out");
    nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
    CHECK_OK(nrt_allocate_tensor_set(&inputs));
    CHECK_OK(nrt_allocate_tensor_set(&outputs));
    CHECK_OK(nrt_add_tensor_to_tensor_set(inputs, "a", a));
    CHECK_OK(nrt_add_tensor_to_tensor_set(inputs, "b", b));
    CHECK_OK(nrt_add_tensor_to_tensor_set(outputs, "out", out));
    nrta_error_tracker_t* tracker = NULL;
    CHECK_OK(nrta_error_tracker_create(0, &tracker));

    /* Writes on the write unit's two queues, then three executions. */
    float host_a[elements], host_b[elements], result[elements];
    for (int i = 0; i < elements; ++i) {
        host_a[i] = (float)i;
        host_b[i] = 10.0f * (float)i;
    }
    nrta_seq_t wa = 0, wb = 0, e[3] = {0, 0, 0}, r = 0;
    CHECK_OK(nrta_tensor_write(a, host_a, 0, bytes, 0, tracker, &wa));
    CHECK_OK(nrta_tensor_write(b, host_b, 0, bytes, 1, tracker, &wb));
    CHECK(NRTA_SEQ_GET_XU_ID(wa) != NRTA_SEQ_GET_XU_ID(wb), "two queues share a unit id");
    while (!completed(wa) || !completed(wb)) usleep(1000); /* units run independently: order by waiting */
    for (int i = 0; i < 3; ++i) CHECK_OK(nrta_execute_schedule(model, inputs, outputs, 0, tracker, &e[i]));
    CHECK(NRTA_SEQ_GET_SEQ_NUM(e[0]) == 1 && NRTA_SEQ_GET_SEQ_NUM(e[2]) == 3, "executions are numbered %llu..%llu",
          (unsigned long long)NRTA_SEQ_GET_SEQ_NUM(e[0]), (unsigned long long)NRTA_SEQ_GET_SEQ_NUM(e[2]));
    CHECK(NRTA_SEQ_GET_XU_ID(e[0]) == NRTA_SEQ_GET_XU_ID(e[2]), "one unit, one id");
    int fd = -1;
    CHECK_OK(nrta_get_completion_handle(e[2], &fd));

    /* Continuous profiling refuses asynchronous execution. */
    nrt_profile_continuous_options_t* profile = NULL;
    CHECK_OK(nrt_profile_continuous_options_allocate(&profile));
    CHECK_IS(nrt_profile_continuous_start(profile), NRT_INVALID);
    nrt_profile_continuous_options_free(profile);

    /* Simulated time stands still: nothing has run. */
    CHECK(!completed(e[0]) && !readable(fd, 0), "an execution completed before time moved");
    nrta_seq_t last = 0;
    CHECK_OK(nrta_get_sequence(0, NRTA_XU_COMPUTE, 0, &last));
    CHECK(NRTA_SEQ_GET_SEQ_NUM(last) == 0 && NRTA_SEQ_GET_XU_ID(last) == NRTA_SEQ_GET_XU_ID(e[0]),
          "last completed before any: %llx", (unsigned long long)last);

    pause_at("advance");
    CHECK(readable(fd, 60000), "the completion fd never became readable");
    close(fd);
    CHECK(completed(e[2]) && completed(wa) && completed(wb), "not every request completed");
    CHECK_OK(nrta_get_sequence(0, NRTA_XU_COMPUTE, 0, &last));
    CHECK(last == e[2], "the compute unit's last completed is %llx, not %llx", (unsigned long long)last,
          (unsigned long long)e[2]);
    CHECK_OK(nrta_tensor_read(result, out, 0, bytes, 0, tracker, &r));
    while (!completed(r)) usleep(1000);
    for (int i = 0; i < elements; ++i) CHECK(result[i] == 11.0f * (float)i, "out[%d] = %g", i, (double)result[i]);
    /* A copy on the tensor-op unit; the 3.0 form's write names the core and writes its status. */
    nrta_seq_t copy = 0, rewrite = 0;
    float copied[elements];
    CHECK_OK(nrta_tensor_copy(out, 0, a, 0, bytes, 0, tracker, &copy));
    while (!completed(copy)) usleep(1000);
    CHECK_OK(nrt_tensor_read(a, copied, 0, bytes));
    CHECK(memcmp(copied, result, bytes) == 0, "the copy did not land");
    tensor_write_v3 write_v3 = (tensor_write_v3)dlvsym(RTLD_DEFAULT, "nrta_tensor_write", "NRT_3.0.0");
    NRT_STATUS written = NRT_FAILURE;
    CHECK(write_v3 != NULL, "no nrta_tensor_write@NRT_3.0.0");
    if (write_v3 != NULL) {
        CHECK_IS(write_v3(a, host_a, 0, bytes, 1, 0, &written, &rewrite), NRT_INVALID); /* a is on core 0 */
        CHECK_OK(write_v3(a, host_a, 0, bytes, 0, 0, &written, &rewrite));
        while (!completed(rewrite)) usleep(1000);
        CHECK(written == NRT_SUCCESS, "the 3.0 write's status is %d", (int)written);
    }
    CHECK_OK(nrt_tensor_check_output_completion(out, 0, 3));
    CHECK_IS(nrt_tensor_check_output_completion(out, 0, 4), NRT_TIMEOUT);
    CHECK_OK(nrt_tensor_reset_output_completion(out));
    CHECK_IS(nrt_tensor_check_output_completion(out, 0, 1), NRT_TIMEOUT);

    /* The 3.0 form: its status lands in `ret` once it ran. */
    execute_schedule_v3 schedule_v3 = (execute_schedule_v3)dlvsym(RTLD_DEFAULT, "nrta_execute_schedule", "NRT_3.0.0");
    CHECK(schedule_v3 != NULL, "no nrta_execute_schedule@NRT_3.0.0");
    NRT_STATUS ret = NRT_FAILURE;
    nrta_seq_t v3 = 0;
    if (schedule_v3 != NULL) CHECK_OK(schedule_v3(model, inputs, outputs, 0, &ret, &v3));
    CHECK(NRTA_SEQ_GET_SEQ_NUM(v3) == 4, "the 3.0 form's request is %llu on the unit",
          (unsigned long long)NRTA_SEQ_GET_SEQ_NUM(v3));
    pause_at("advance");
    while (!completed(v3)) usleep(1000);
    CHECK(ret == NRT_SUCCESS, "the 3.0 form's status is %d", (int)ret);

    const nrta_error_t* errors = NULL;
    size_t error_count = 99;
    CHECK_OK(nrta_error_tracker_get_list(tracker, &errors, &error_count));
    CHECK(error_count == 0, "%zu errors before any fault", error_count);

    /* A DMA abort: the execution fails, the tracker has it, the unit is dead. */
    pause_at("inject");
    nrta_seq_t failing = 0, refused = 0;
    CHECK_OK(nrta_execute_schedule(model, inputs, outputs, 0, tracker, &failing));
    pause_at("advance");
    while (!completed(failing)) usleep(1000);
    CHECK_OK(nrta_error_tracker_get_list(tracker, &errors, &error_count));
    CHECK(error_count == 1 && errors[0].seq_id == failing && errors[0].error_code == NRT_EXEC_HW_ERR_DMA_ABORT,
          "errors: %zu, first %llx code %llu", error_count, error_count ? (unsigned long long)errors[0].seq_id : 0ull,
          error_count ? (unsigned long long)errors[0].error_code : 0ull);
    CHECK_IS(nrta_execute_schedule(model, inputs, outputs, 0, tracker, &refused), NRT_EXEC_UNIT_UNRECOVERABLE);

    /* Bad arguments. */
    CHECK_IS(nrta_execute_schedule(model, inputs, outputs, 1, tracker, &refused), NRT_INVALID);
    CHECK_IS(nrta_get_sequence(0, (nrta_xu_t)7, 0, &last), NRT_INVALID);
    CHECK_IS(nrta_get_sequence(9, NRTA_XU_COMPUTE, 0, &last), NRT_INVALID);
    bool flag = false;
    CHECK_IS(nrta_is_completed(e[2] + 1000, &flag), NRT_INVALID);
    CHECK_IS(nrta_tensor_write(a, host_a, 8, bytes, 0, tracker, &wa), NRT_INVALID);
    CHECK_IS(nrta_tensor_write(a, host_a, 0, bytes, 2, tracker, &wa), NRT_INVALID);
    CHECK_IS(nrta_get_completion_handle(0x7fff000000000001ull, &fd), NRT_INVALID);
    CHECK_IS(nrta_error_tracker_get_list(NULL, &errors, &error_count), NRT_INVALID);

    nrta_error_tracker_destroy(tracker);
    nrt_destroy_tensor_set(&inputs);
    nrt_destroy_tensor_set(&outputs);
    nrt_tensor_free(&a);
    nrt_tensor_free(&b);
    nrt_tensor_free(&out);
    CHECK_OK(nrt_unload(model));
    nrt_close();
    return finish_checks();
}
