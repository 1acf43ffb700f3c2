/*
 * The runtime functions around the core API, on an emulated trn1.2xlarge:
 * device memory mapped into the process (HBM regions, nrt_memcpy_to_device),
 * host device and routing ids, what the instance does not have (EFA,
 * dma-bufs, the collectives network plugin), microcode before nrt_init,
 * one-worker collectives and their set-up, the send/receive limits, and the
 * implicit asynchronous mode.
 *
 * usage: runtime_extras             (NEURON_RT_VISIBLE_CORES=0)
 *        runtime_extras implicit MODEL
 *            with NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS=2 on a stepped
 *            emulator: pauses at "advance" for the harness to move time.
 *
 * Says "FAIL ..." for each broken expectation and "checks N failed F" at the
 * end; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "checks.h"

#include <nrt/nrt_async_sendrecv.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_profile.h>
#include <unistd.h>

static void before_init(void) {
    uint8_t image[16] = {1};
    nrt_ucode_info ucode = {{image, sizeof(image)}, {image, sizeof(image)}};
    CHECK_OK(nrt_set_pool_eng_ucode(&ucode));
    ucode.dram.size = 0;
    CHECK_IS(nrt_set_pool_eng_ucode(&ucode), NRT_INVALID);
    uint32_t id = 99, map[4] = {9, 9, 9, 9}, count = 0;
    CHECK_OK(nrt_host_device_id_get(0, &id));
    CHECK(id == 0, "host device id %u", id);
    CHECK_IS(nrt_host_device_id_get(1, &id), NRT_INVALID);
    CHECK_IS(nrt_host_device_id_rid_map_get(&count, map), NRT_RESOURCE);
    CHECK(count == 1, "the map needs room for %u devices", count);
    count = 4;
    CHECK_OK(nrt_host_device_id_rid_map_get(&count, map));
    CHECK(count == 1 && map[0] == 0 && map[1] == 9, "map %u: %u %u", count, map[0], map[1]);
}

static void mapped_memory(void) {
    void* regions[4] = {NULL};
    size_t sizes[4] = {0};
    int n = 0;
    NRT_STATUS s = NRT_SUCCESS;
    while (n < 4 && (s = nrt_get_hbm_mmap_va(0, n, &regions[n], &sizes[n])) == NRT_SUCCESS) ++n;
    CHECK(n == 2 && s == NRT_INVALID_HANDLE, "%d HBM regions, then status %d", n, (int)s);
    CHECK(sizes[0] == (size_t)16 << 30, "region 0 has %zu bytes", sizes[0]);
    void* again = NULL;
    size_t size = 0;
    CHECK_OK(nrt_get_hbm_mmap_va(0, 1, &again, &size));
    CHECK(again == regions[1], "a second query maps the region again");
    CHECK_IS(nrt_get_hbm_mmap_va(1, 0, &again, &size), NRT_INVALID);
    CHECK_IS(nrt_get_hbm_mmap_va(0, -1, &again, &size), NRT_INVALID);

    const char text[] = "written by nrt_memcpy_to_device";
    if (regions[1] != NULL) {
        char* end = (char*)regions[1] + sizes[1] - sizeof(text);
        CHECK_OK(nrt_memcpy_to_device(end, text, sizeof(text)));
        CHECK(memcmp(end, text, sizeof(text)) == 0, "the region does not show the bytes");
        CHECK_IS(nrt_memcpy_to_device(end + 1, text, sizeof(text)), NRT_INVALID); /* one past its end */
    }
    nrt_tensor_t* t = NULL;
    char back[sizeof(text)] = {0}, on_stack[sizeof(text)];
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, sizeof(text), "t", &t));
    CHECK_OK(nrt_memcpy_to_device(nrt_tensor_get_va(t), text, sizeof(text)));
    CHECK_OK(nrt_tensor_read(t, back, 0, sizeof(back)));
    CHECK(memcmp(back, text, sizeof(text)) == 0, "the tensor does not show the bytes");
    CHECK_IS(nrt_memcpy_to_device(on_stack, text, sizeof(text)), NRT_INVALID);

    int fd = 7;
    char bdf[32];
    size_t len = sizeof(bdf);
    CHECK_IS(nrt_get_dmabuf_fd((uint64_t)(uintptr_t)nrt_tensor_get_va(t), sizeof(text), &fd), NRT_FAILURE);
    CHECK_IS(nrt_get_attached_efa_bdf(nrt_tensor_get_va(t), bdf, &len), NRT_FAILURE);
    nrt_tensor_free(&t);
}

static void absent_and_set_up(void) {
    int err = 0;
    char why[128] = "";
    CHECK(nrt_get_libnccl_net(&err, why, sizeof(why)) == NULL, "a network plugin appeared");
    CHECK(err != 0 && strstr(why, "EFA") != NULL, "err %d, '%s'", err, why);
    uint8_t image[4] = {1};
    nrt_ucode_info ucode = {{image, sizeof(image)}, {image, sizeof(image)}};
    CHECK_IS(nrt_set_pool_eng_ucode(&ucode), NRT_INVALID); /* after nrt_init */

    CHECK_OK(nrt_cc_create_stream(0));
    CHECK_OK(nrt_build_global_comm(0, 0, 1));
    CHECK_OK(nrt_cc_global_comm_init(0, 0, 1));
    CHECK_IS(nrt_build_global_comm(0, 1, 1), NRT_INVALID);
    CHECK_IS(nrt_cc_global_comm_init(3, 0, 1), NRT_INVALID);
    CHECK_OK(nrt_barrier(0, 0, 1));
    uint64_t mine = 0x1122334455667788ull, all = 0;
    CHECK_OK(nrt_all_gather(0, 0, 1, sizeof(mine), &mine, &all));
    CHECK(all == mine, "a one-worker all-gather changed the bytes");

    /* Tracing is kept for the profiles work: no file is written yet. */
    CHECK_OK(nrt_trace_start(true));
    CHECK_IS(nrt_trace_start(false), NRT_INVALID);
    CHECK_IS(nrt_trace_stop(NULL), NRT_INVALID);
    CHECK_OK(nrt_trace_stop("runtime_extras.trace"));
    CHECK(access("runtime_extras.trace", F_OK) != 0, "nrt_trace_stop wrote a file");
    CHECK_IS(nrt_trace_stop("runtime_extras.trace"), NRT_INVALID);

    int most = 0;
    CHECK_OK(nrt_async_sendrecv_get_max_num_communicators_per_lnc(&most));
    CHECK(most == 16, "%d communicators", most);
    CHECK_OK(nrt_async_sendrecv_get_max_num_pending_request(&most));
    CHECK(most == 64, "%d requests", most);
    CHECK_IS(nrt_async_sendrecv_init(1), NRT_FAILURE); /* not this process's core */
    CHECK_OK(nrt_async_sendrecv_init(0));
    CHECK_IS(nrt_async_sendrecv_init(0), NRT_FAILURE);
    CHECK_OK(nrt_async_sendrecv_close(0));
    CHECK_IS(nrt_async_sendrecv_close(0), NRT_FAILURE);
    CHECK_IS(nrt_async_sendrecv_flush(0), NRT_FAILURE);
}

struct heard {
    int calls;
    uint64_t last_job;
    NRT_STATUS status;
};

static void on_done(void* params, uint32_t model_id, uint32_t vnc, uint64_t job_id, NRT_STATUS status) {
    (void)model_id;
    (void)vnc;
    struct heard* h = (struct heard*)params;
    __atomic_add_fetch(&h->calls, 1, __ATOMIC_SEQ_CST);
    h->last_job = job_id;
    h->status = status;
}

static void implicit_mode(const char* path) {
    size_t size = 0;
    char* file = read_whole_file(path, &size);
    nrt_model_t* model = NULL;
    CHECK_IS(nrt_load_collectives(file, size, 0, -1, 2, 2, &model), NRT_INVALID);
    CHECK_OK(nrt_load_collectives(file, size, 0, -1, 1, 2, &model));
    free(file);
    uint32_t instances = 0;
    CHECK_OK(nrt_get_model_instance_count(model, &instances));
    CHECK(instances == 1, "%u instances", instances);
    nrt_tensor_t *a = NULL, *b = NULL, *out = NULL;
    nrt_tensor_set_t *in = NULL, *outs = NULL;
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24, "a", &a));
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24, "b", &b));
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24, "out", &out));
    CHECK_OK(nrt_allocate_tensor_set(&in));
    CHECK_OK(nrt_allocate_tensor_set(&outs));
    CHECK_OK(nrt_add_tensor_to_tensor_set(in, "a", a));
    CHECK_OK(nrt_add_tensor_to_tensor_set(in, "b", b));
    CHECK_OK(nrt_add_tensor_to_tensor_set(outs, "out", out));
    const float ones[6] = {1, 1, 1, 1, 1, 1};
    CHECK_OK(nrt_tensor_write(a, ones, 0, sizeof(ones)));
    CHECK_OK(nrt_tensor_write(b, ones, 0, sizeof(ones)));

    nrt_profile_continuous_options_t* profile = NULL;
    CHECK_OK(nrt_profile_continuous_options_allocate(&profile));
    CHECK_IS(nrt_profile_continuous_start(profile), NRT_INVALID); /* the implicit mode is on */
    nrt_profile_continuous_options_free(profile);

    struct heard h = {0, 0, NRT_FAILURE};
    CHECK_IS(nrt_register_async_exec_callback(NULL, &h), NRT_INVALID);
    CHECK_OK(nrt_register_async_exec_callback(on_done, &h));
    CHECK_OK(nrt_execute(model, in, outs)); /* queued: time stands still */
    CHECK_OK(nrt_execute(model, in, outs));
    CHECK_IS(nrt_execute(model, in, outs), NRT_QUEUE_FULL);
    CHECK(__atomic_load_n(&h.calls, __ATOMIC_SEQ_CST) == 0, "a callback came before time moved");
    pause_at("advance");
    CHECK_OK(nrt_async_drain_queued_execs(0));
    CHECK(h.calls == 2 && h.last_job == 2 && h.status == NRT_SUCCESS, "calls %d, last job %llu, status %d", h.calls,
          (unsigned long long)h.last_job, (int)h.status);
    float sum[6] = {0};
    CHECK_OK(nrt_tensor_read(out, sum, 0, sizeof(sum)));
    CHECK(sum[0] == 2.0f && sum[5] == 2.0f, "out = %g", (double)sum[0]);
    CHECK_IS(nrt_async_drain_queued_execs(5), NRT_INVALID);
    nrt_destroy_tensor_set(&in);
    nrt_destroy_tensor_set(&outs);
    nrt_tensor_free(&a);
    nrt_tensor_free(&b);
    nrt_tensor_free(&out);
    CHECK_OK(nrt_unload(model));
}

int main(int argc, char** argv) {
    const int implicit = argc == 3 && strcmp(argv[1], "implicit") == 0;
    if (!implicit && argc != 1) {
        fprintf(stderr, "usage: runtime_extras [implicit MODEL]\n");
        return 2;
    }
    if (!implicit) before_init();
    CHECK_OK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
    if (implicit) {
        implicit_mode(argv[2]);
    } else {
        mapped_memory();
        absent_and_set_up();
    }
    nrt_close();
    return finish_checks();
}
