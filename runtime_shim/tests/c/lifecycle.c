/*
 * The runtime's states (nrt-api.md §1.2: START -> INITED -> CLOSED): calls
 * that need a runtime, made before nrt_init, after a failed nrt_init and
 * after nrt_close, with otherwise valid arguments. Nothing may crash.
 *
 * usage: lifecycle
 *
 * Says "<phase> <call> STATUS" for each call, phase "before", then
 * "init STATUS", then "failed" (init failed) or "after" (init succeeded,
 * then a stream, a model, a tensor, a scheduled write, then nrt_close), then
 * "done".
 * On stderr, "== init" and "== after-init" enclose nrt_init's log lines.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common.h"

#include <nrt/nrt_async.h>
#include <nrt/nrt_experimental.h>
#include <unistd.h>

static const char model_text[] = "neuron_emu_model: 1\n"
                                 "name: tiny\n"
                                 "inputs:\n"
                                 "  - {name: x, dtype: int32, shape: [4]}\n"
                                 "outputs:\n"
                                 "  - {name: y, dtype: int32, shape: [4], copy: x}\n";

static void calls(const char* phase, nrt_model_t* model, int stream_fd, nrt_tensor_t* tensor, nrta_seq_t seq) {
    nrt_model_t* loaded = NULL;
    NRT_STATUS s = nrt_load(model_text, sizeof model_text - 1, -1, -1, &loaded);
    SAY("%s load %s", phase, nrt_get_status_as_str(s));
    if (s == NRT_SUCCESS) nrt_unload(loaded);

    nrt_tensor_t* t = NULL;
    s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "t", &t);
    SAY("%s tensor_allocate %s", phase, nrt_get_status_as_str(s));
    nrt_tensor_free(&t);

    s = nrt_tensor_allocate_empty("e", &t);
    SAY("%s tensor_allocate_empty %s", phase, nrt_get_status_as_str(s));
    nrt_tensor_free(&t);

    nrt_tensor_set_t* in = NULL;
    nrt_tensor_set_t* out = NULL;
    nrt_allocate_tensor_set(&in);
    nrt_allocate_tensor_set(&out);
    if (tensor != NULL) {
        nrt_add_tensor_to_tensor_set(in, "x", tensor);
        nrt_add_tensor_to_tensor_set(out, "y", tensor);
    }
    s = nrt_execute(model, in, out);
    SAY("%s execute %s", phase, nrt_get_status_as_str(s));
    s = nrt_execute_repeat(model, in, out, 2);
    SAY("%s execute_repeat %s", phase, nrt_get_status_as_str(s));
    nrt_destroy_tensor_set(&in);
    nrt_destroy_tensor_set(&out);

    int fd = -1;
    s = nrt_debug_client_connect(0, &fd);
    SAY("%s debug_connect %s", phase, nrt_get_status_as_str(s));
    if (s == NRT_SUCCESS) nrt_debug_client_connect_close(fd);

    ndebug_stream_event_header_t header;
    void* payload = NULL;
    s = nrt_debug_client_read_one_event(stream_fd, &header, &payload);
    SAY("%s debug_read %s", phase, nrt_get_status_as_str(s));
    free(payload);

    nrt_vnc_memory_stats_t stats;
    size_t got = 0;
    s = nrt_get_vnc_memory_stats(0, &stats, sizeof stats, &got);
    SAY("%s memory_stats %s", phase, nrt_get_status_as_str(s));

    bool completed = false;
    s = nrta_is_completed(seq, &completed);
    SAY("%s is_completed %s", phase, nrt_get_status_as_str(s));
    int completion_fd = -1;
    s = nrta_get_completion_handle(seq, &completion_fd);
    SAY("%s completion_handle %s", phase, nrt_get_status_as_str(s));
    if (s == NRT_SUCCESS) close(completion_fd);

    /* These may ask the emulator or answer from the process; they only must not crash. */
    uint32_t n = 0;
    s = nrt_get_visible_nc_count(&n);
    SAY("%s visible_count_returned %s", phase, nrt_get_status_as_str(s));
    s = nrt_get_total_nc_count(&n);
    SAY("%s total_count_returned %s", phase, nrt_get_status_as_str(s));
    nrt_instance_info_t info;
    s = nrt_get_instance_info(&info, sizeof info);
    SAY("%s instance_info_returned %s", phase, nrt_get_status_as_str(s));
    if (tensor != NULL) {
        unsigned char bytes[16];
        s = nrt_tensor_read(tensor, bytes, 0, sizeof bytes);
        SAY("%s tensor_read_returned %s", phase, nrt_get_status_as_str(s));
    }
    if (model != NULL) {
        nrt_tensor_info_array_t* tensors = NULL;
        s = nrt_get_model_tensor_info(model, &tensors);
        SAY("%s tensor_info_returned %s", phase, nrt_get_status_as_str(s));
        if (s == NRT_SUCCESS) nrt_free_model_tensor_info(tensors);
    }
    nrt_close(); /* a close outside INITED is harmless */
}

int main(void) {
    calls("before", NULL, 0, NULL, 0);

    MARK("init");
    const NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    MARK("after-init");
    SAY("init %s", nrt_get_status_as_str(s));
    if (s != NRT_SUCCESS) {
        calls("failed", NULL, 0, NULL, 0);
        SAY("done");
        return 0;
    }

    int stream_fd = -1;
    nrt_model_t* model = NULL;
    nrt_tensor_t* tensor = NULL;
    SAY("setup connect %s", nrt_get_status_as_str(nrt_debug_client_connect(0, &stream_fd)));
    SAY("setup load %s", nrt_get_status_as_str(nrt_load(model_text, sizeof model_text - 1, -1, -1, &model)));
    SAY("setup tensor %s",
        nrt_get_status_as_str(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "x", &tensor)));
    const unsigned char zeros[16] = {0};
    nrta_seq_t seq = 0;
    SAY("setup schedule %s", nrt_get_status_as_str(nrta_tensor_write(tensor, zeros, 0, sizeof zeros, 0, NULL, &seq)));
    nrt_close();
    calls("after", model, stream_fd, tensor, seq);
    nrt_tensor_free(&tensor);
    SAY("after unload_returned %s", nrt_get_status_as_str(nrt_unload(model)));
    SAY("done");
    return 0;
}
