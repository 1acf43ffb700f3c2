/*
 * Bad arguments into every API: NULL pointers, sizes and offsets past the
 * end, models that are not model files or are malformed, tensor sets that
 * do not fit the model. Nothing may crash; each call returns the status
 * expected of it.
 *
 * usage: bad_input MODEL_FILE [--enums]
 *        (MODEL_FILE: an add model: inputs a, b and output out, float32 [2, 3])
 *
 * --enums checks only enum arguments outside their named values (valid C:
 * a C enum holds any value of its integer type), which must be refused
 * like any other bad argument.
 *
 * Needs a runtime that owns exactly one logical core. For each check: a
 * line "NAME STATUS" on stdout (a "FAIL NAME ..." line first when the status
 * is not the expected one) and a marker "== NAME" on stderr before the call,
 * so the harness can find each call's log lines. Ends with "checks N failed F";
 * exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common.h"

#include <nrt/nrt_experimental.h>
#include <nrt/nrt_version.h>

static int checks = 0;
static int failures = 0;

static void record(const char* name, NRT_STATUS got, NRT_STATUS expected, int negate) {
    ++checks;
    const int ok = negate ? got != expected : got == expected;
    if (!ok) {
        ++failures;
        SAY("FAIL %s returned %s, expected %s%s", name, nrt_get_status_as_str(got), negate ? "anything but " : "",
            nrt_get_status_as_str(expected));
    }
    SAY("%s %s", name, nrt_get_status_as_str(got));
}

#define EXPECT(name, call, expected)                                                                                   \
    do {                                                                                                               \
        MARK(name);                                                                                                    \
        record((name), (call), (expected), 0);                                                                         \
    } while (0)

#define EXPECT_NOT(name, call, unexpected)                                                                             \
    do {                                                                                                               \
        MARK(name);                                                                                                    \
        record((name), (call), (unexpected), 1);                                                                       \
    } while (0)

/* Malformed model files; the harness checks the LINE:COLUMN in their log lines. */
static const char wrong_type[] = "neuron_emu_model: 1\n"                       /* 1 */
                                 "name: wrong_type\n"                          /* 2 */
                                 "work:\n"                                     /* 3 */
                                 "  tensor: lots\n";                           /* 4: column 11 */
static const char unknown_key[] = "neuron_emu_model: 1\n"                      /* 1 */
                                  "name: unknown_key\n"                        /* 2 */
                                  "inputz: []\n";                              /* 3: column 1 */
static const char bad_dtype[] = "neuron_emu_model: 1\n"                        /* 1 */
                                "name: bad_dtype\n"                            /* 2 */
                                "inputs:\n"                                    /* 3 */
                                "  - {name: a, dtype: float33, shape: [2]}\n"; /* 4: column 22 */
static const char not_a_model[] = "just: some yaml\nthat: is not a model\n";

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bad_input MODEL_FILE\n");
        return 64;
    }
    size_t model_size = 0;
    char* model_text = read_whole_file(argv[1], &model_size);
    if (model_text == NULL) {
        SAY("FAIL cannot read %s", argv[1]);
        return 1;
    }

    if (argc > 2 && strcmp(argv[2], "--enums") == 0) {
        nrt_tensor_t* t = NULL;
        EXPECT("init_bad_framework", nrt_init((nrt_framework_type_t)99, "", ""), NRT_INVALID);
        EXPECT("init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
        EXPECT("alloc_bad_placement", nrt_tensor_allocate((nrt_tensor_placement_t)7, 0, 16, "x", &t), NRT_INVALID);
        nrt_tensor_free(&t);
        nrt_close();
        free(model_text);
        SAY("checks %d failed %d", checks, failures);
        return failures > 0 ? 1 : 0;
    }

    /* --- lifecycle --- */
    EXPECT("init_bad_framework", nrt_init(NRT_FRAMEWORK_TYPE_INVALID, "", ""), NRT_INVALID);
    EXPECT("init", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);
    if (failures > 0) return 1;
    EXPECT_NOT("init_twice", nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""), NRT_SUCCESS);

    /* --- topology --- */
    EXPECT("instance_info_null", nrt_get_instance_info(NULL, sizeof(nrt_instance_info_t)), NRT_INVALID);
    EXPECT("total_count_null", nrt_get_total_nc_count(NULL), NRT_INVALID);
    EXPECT("total_vnc_count_null", nrt_get_total_vnc_count(NULL), NRT_INVALID);
    EXPECT("visible_count_null", nrt_get_visible_nc_count(NULL), NRT_INVALID);
    EXPECT("visible_vnc_count_null", nrt_get_visible_vnc_count(NULL), NRT_INVALID);
    EXPECT("version_null", nrt_get_version(NULL, sizeof(nrt_version_t)), NRT_INVALID);
    size_t stats_size = 0;
    nrt_vnc_memory_stats_t stats;
    EXPECT("memory_stats_null", nrt_get_vnc_memory_stats(0, NULL, sizeof stats, &stats_size), NRT_INVALID);
    EXPECT("memory_stats_not_owned", nrt_get_vnc_memory_stats(1, &stats, sizeof stats, &stats_size), NRT_INVALID);

    /* --- load --- */
    nrt_model_t* model = NULL;
    unsigned char blob[256];
    memcpy(blob, "NEFF", 4);
    for (size_t i = 4; i < sizeof blob; ++i) blob[i] = (unsigned char)(i * 37u + 11u);
    EXPECT("load_null_bytes", nrt_load(NULL, 10, -1, -1, &model), NRT_INVALID);
    EXPECT("load_null_model", nrt_load(model_text, model_size, -1, -1, NULL), NRT_INVALID);
    EXPECT("load_zero_bytes", nrt_load(model_text, 0, -1, -1, &model), NRT_INVALID);
    EXPECT("load_binary_blob", nrt_load(blob, sizeof blob, -1, -1, &model), NRT_INVALID);
    /* Refused by its size alone, before a byte is read. */
    EXPECT("load_too_large", nrt_load(blob, (size_t)5 << 30, -1, -1, &model), NRT_INVALID);
    EXPECT("load_not_a_model", nrt_load(not_a_model, sizeof not_a_model - 1, -1, -1, &model), NRT_INVALID);
    EXPECT("load_wrong_type", nrt_load(wrong_type, sizeof wrong_type - 1, -1, -1, &model), NRT_INVALID);
    EXPECT("load_unknown_key", nrt_load(unknown_key, sizeof unknown_key - 1, -1, -1, &model), NRT_INVALID);
    EXPECT("load_bad_dtype", nrt_load(bad_dtype, sizeof bad_dtype - 1, -1, -1, &model), NRT_INVALID);
    EXPECT("load_vnc_not_owned", nrt_load(model_text, model_size, 1, -1, &model), NRT_INVALID);
    const size_t huge_size = ((size_t)16 << 20) + 1; /* a model file has at most 16 MiB */
    char* huge = (char*)malloc(huge_size);
    memset(huge, ' ', huge_size);
    memcpy(huge, model_text, model_size);
    EXPECT("load_too_big", nrt_load(huge, huge_size, -1, -1, &model), NRT_INVALID);
    free(huge);
    EXPECT("load", nrt_load(model_text, model_size, -1, -1, &model), NRT_SUCCESS);
    free(model_text);
    if (model == NULL) return 1;

    /* --- model queries --- */
    nrt_tensor_info_array_t* info = NULL;
    uint32_t count = 0;
    nrt_model_info_t model_info;
    size_t model_info_size = 0;
    EXPECT("tensor_info_null_model", nrt_get_model_tensor_info(NULL, &info), NRT_INVALID);
    EXPECT("tensor_info_null_out", nrt_get_model_tensor_info(model, NULL), NRT_INVALID);
    EXPECT("model_nc_count_null", nrt_get_model_nc_count(model, NULL), NRT_INVALID);
    EXPECT("model_vnc_count_null_model", nrt_get_model_vnc_count(NULL, &count), NRT_INVALID);
    EXPECT("model_info_null", nrt_get_model_info(model, NULL, sizeof model_info, &model_info_size), NRT_INVALID);
    EXPECT("model_info_null_model", nrt_get_model_info(NULL, &model_info, sizeof model_info, &model_info_size),
           NRT_INVALID);
    EXPECT("unload_null", nrt_unload(NULL), NRT_INVALID);
    nrt_free_model_tensor_info(NULL);

    /* --- tensors --- */
    nrt_tensor_t* t = NULL;
    nrt_tensor_t* t2 = NULL;
    nrt_tensor_t* empty = NULL;
    nrt_tensor_t* slice = NULL;
    unsigned char buf[64];
    memset(buf, 0, sizeof buf);
    EXPECT("alloc_null_out", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "x", NULL), NRT_INVALID);
    EXPECT("alloc_zero_size", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 0, "x", &t), NRT_INVALID);
    EXPECT("alloc_vnc_not_owned", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 16, "x", &t), NRT_INVALID);
    EXPECT("alloc_vnc_negative", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, -3, 16, "x", &t), NRT_INVALID);
    EXPECT("alloc_empty_null", nrt_tensor_allocate_empty("e", NULL), NRT_INVALID);
    EXPECT("alloc", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "t", &t), NRT_SUCCESS);
    EXPECT("alloc2", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "t2", &t2), NRT_SUCCESS);
    EXPECT("alloc_empty", nrt_tensor_allocate_empty("e", &empty), NRT_SUCCESS);
    if (t == NULL || t2 == NULL || empty == NULL) return 1;

    EXPECT("read_null_tensor", nrt_tensor_read(NULL, buf, 0, 4), NRT_INVALID);
    EXPECT("read_null_buffer", nrt_tensor_read(t, NULL, 0, 4), NRT_INVALID);
    EXPECT("read_past_end", nrt_tensor_read(t, buf, 0, 17), NRT_INVALID);
    EXPECT("read_straddling_end", nrt_tensor_read(t, buf, 12, 8), NRT_INVALID);
    EXPECT("read_offset_past_end", nrt_tensor_read(t, buf, 17, 0), NRT_INVALID);
    EXPECT("read_offset_overflow", nrt_tensor_read(t, buf, SIZE_MAX, 2), NRT_INVALID);
    EXPECT("read_size_overflow", nrt_tensor_read(t, buf, 8, SIZE_MAX - 4), NRT_INVALID);
    EXPECT("read_no_buffer_attached", nrt_tensor_read(empty, buf, 0, 4), NRT_INVALID);
    EXPECT("read_whole", nrt_tensor_read(t, buf, 0, 16), NRT_SUCCESS);
    EXPECT("write_null_tensor", nrt_tensor_write(NULL, buf, 0, 4), NRT_INVALID);
    EXPECT("write_null_buffer", nrt_tensor_write(t, NULL, 0, 4), NRT_INVALID);
    EXPECT("write_past_end", nrt_tensor_write(t, buf, 8, 9), NRT_INVALID);
    EXPECT("write_offset_overflow", nrt_tensor_write(t, buf, SIZE_MAX - 1, 4), NRT_INVALID);
    EXPECT("write_no_buffer_attached", nrt_tensor_write(empty, buf, 0, 4), NRT_INVALID);
    EXPECT("memset_past_end", nrt_tensor_memset(t, 10, 0, 7), NRT_INVALID);
    EXPECT("memset_null", nrt_tensor_memset(NULL, 0, 0, 1), NRT_INVALID);
    EXPECT("copy_null_source", nrt_tensor_copy(NULL, 0, t2, 0, 4), NRT_INVALID);
    EXPECT("copy_null_destination", nrt_tensor_copy(t, 0, NULL, 0, 4), NRT_INVALID);
    EXPECT("copy_source_past_end", nrt_tensor_copy(t, 8, t2, 0, 9), NRT_INVALID);
    EXPECT("copy_destination_past_end", nrt_tensor_copy(t, 0, t2, 10, 8), NRT_INVALID);
    EXPECT("slice_past_end", nrt_tensor_allocate_slice(t, 8, 9, "s", &slice), NRT_INVALID);
    EXPECT("slice_offset_overflow", nrt_tensor_allocate_slice(t, SIZE_MAX, 2, "s", &slice), NRT_INVALID);
    EXPECT("slice_null_out", nrt_tensor_allocate_slice(t, 0, 4, "s", NULL), NRT_INVALID);
    EXPECT("slice_null_source", nrt_tensor_allocate_slice(NULL, 0, 4, "s", &slice), NRT_INVALID);
    EXPECT("attach_null_buffer", nrt_tensor_attach_buffer(empty, NULL, 16), NRT_INVALID);
    EXPECT("attach_null_tensor", nrt_tensor_attach_buffer(NULL, buf, 16), NRT_INVALID);
    nrt_tensor_device_allocation_info_t where;
    EXPECT("device_info_null", nrt_tensor_get_device_allocation_info(t, NULL), NRT_INVALID);
    EXPECT("device_info_null_tensor", nrt_tensor_get_device_allocation_info(NULL, &where), NRT_INVALID);
    nrt_tensor_batch_op_t ops[2];
    ops[0].offset = 0;
    ops[0].size = 8;
    ops[0].buffer = buf;
    ops[1].offset = 12;
    ops[1].size = 8;
    ops[1].buffer = buf;
    nrt_tensor_batch_t batch;
    batch.tensor = t;
    batch.ops = ops;
    batch.num_ops = 2;
    EXPECT("read_batch_null", nrt_tensor_read_batch(NULL, 1, false), NRT_INVALID);
    EXPECT("read_batch_past_end", nrt_tensor_read_batch(&batch, 1, false), NRT_INVALID);
    EXPECT("write_batch_past_end", nrt_tensor_write_batch(&batch, 1, false), NRT_INVALID);
    batch.ops = NULL;
    EXPECT("write_batch_null_ops", nrt_tensor_write_batch(&batch, 1, false), NRT_INVALID);
    if (nrt_tensor_get_va(NULL) != NULL) {
        ++failures;
        SAY("FAIL get_va(NULL) is not NULL");
    }
    if (nrt_tensor_get_size(NULL) != 0) {
        ++failures;
        SAY("FAIL get_size(NULL) is not 0");
    }
    nrt_tensor_free(NULL);

    /* --- tensor sets --- */
    nrt_tensor_set_t* in = NULL;
    nrt_tensor_set_t* out = NULL;
    nrt_tensor_t* found = NULL;
    EXPECT("set_alloc_null", nrt_allocate_tensor_set(NULL), NRT_INVALID);
    EXPECT("set_alloc", nrt_allocate_tensor_set(&in), NRT_SUCCESS);
    EXPECT("set_alloc2", nrt_allocate_tensor_set(&out), NRT_SUCCESS);
    EXPECT("set_add_null_set", nrt_add_tensor_to_tensor_set(NULL, "a", t), NRT_INVALID);
    EXPECT("set_add_null_name", nrt_add_tensor_to_tensor_set(in, NULL, t), NRT_INVALID);
    EXPECT("set_add_null_tensor", nrt_add_tensor_to_tensor_set(in, "a", NULL), NRT_INVALID);
    EXPECT("set_get_missing", nrt_get_tensor_from_tensor_set(in, "nothing", &found), NRT_FAILURE);
    EXPECT("set_get_null_out", nrt_get_tensor_from_tensor_set(in, "a", NULL), NRT_INVALID);
    EXPECT("set_get_null_set", nrt_get_tensor_from_tensor_set(NULL, "a", &found), NRT_INVALID);
    nrt_destroy_tensor_set(NULL);

    /* --- execute: the add model takes a, b and gives out, 24 bytes each --- */
    nrt_tensor_t* a = NULL;
    nrt_tensor_t* b = NULL;
    nrt_tensor_t* o = NULL;
    nrt_tensor_t* small = NULL;
    EXPECT("alloc_a", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24, "a", &a), NRT_SUCCESS);
    EXPECT("alloc_b", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24, "b", &b), NRT_SUCCESS);
    EXPECT("alloc_out", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24, "out", &o), NRT_SUCCESS);
    EXPECT("alloc_small", nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "small", &small), NRT_SUCCESS);
    EXPECT("exec_null_model", nrt_execute(NULL, in, out), NRT_INVALID);
    EXPECT("exec_null_inputs", nrt_execute(model, NULL, out), NRT_INVALID);
    nrt_add_tensor_to_tensor_set(in, "a", a);
    nrt_add_tensor_to_tensor_set(out, "out", o);
    EXPECT("exec_missing_input", nrt_execute(model, in, out), NRT_INVALID);
    nrt_add_tensor_to_tensor_set(in, "b", small);
    EXPECT("exec_input_wrong_size", nrt_execute(model, in, out), NRT_INVALID);
    nrt_add_tensor_to_tensor_set(in, "b", empty);
    EXPECT("exec_input_without_buffer", nrt_execute(model, in, out), NRT_INVALID);
    nrt_add_tensor_to_tensor_set(in, "b", b);
    EXPECT("exec_null_outputs", nrt_execute(model, in, NULL), NRT_INVALID);
    nrt_tensor_set_t* no_outputs = NULL;
    nrt_allocate_tensor_set(&no_outputs);
    EXPECT("exec_missing_output", nrt_execute(model, in, no_outputs), NRT_INVALID);
    nrt_destroy_tensor_set(&no_outputs);
    nrt_add_tensor_to_tensor_set(out, "out", small);
    EXPECT("exec_output_wrong_size", nrt_execute(model, in, out), NRT_INVALID);
    nrt_add_tensor_to_tensor_set(out, "out", o);
    EXPECT("exec_repeat_zero", nrt_execute_repeat(model, in, out, 0), NRT_INVALID);
    EXPECT("exec", nrt_execute(model, in, out), NRT_SUCCESS);
    EXPECT("set_get", nrt_get_tensor_from_tensor_set(in, "a", &found), NRT_SUCCESS);
    if (found != a) {
        ++failures;
        SAY("FAIL set_get found another tensor");
    }

    /* --- debug streams --- */
    int fd = -1;
    ndebug_stream_event_header_t header;
    void* payload = NULL;
    EXPECT("connect_null_fd", nrt_debug_client_connect(0, NULL), NRT_INVALID);
    EXPECT("connect_negative_core", nrt_debug_client_connect(-1, &fd), NRT_INVALID);
    EXPECT("connect_not_owned", nrt_debug_client_connect(1, &fd), NRT_INVALID);
    EXPECT("connect", nrt_debug_client_connect(0, &fd), NRT_SUCCESS);
    EXPECT("read_event_null_header", nrt_debug_client_read_one_event(fd, NULL, &payload), NRT_INVALID);
    EXPECT("read_event_null_payload", nrt_debug_client_read_one_event(fd, &header, NULL), NRT_INVALID);
    EXPECT("read_event_negative_fd", nrt_debug_client_read_one_event(-1, &header, &payload), NRT_INVALID);
    EXPECT("read_event_not_a_stream", nrt_debug_client_read_one_event(0, &header, &payload), NRT_INVALID);
    EXPECT("read_event_empty", nrt_debug_client_read_one_event(fd, &header, &payload), NRT_QUEUE_EMPTY);
    MARK("close_not_a_stream");
    nrt_debug_client_connect_close(-1);
    nrt_debug_client_connect_close(fd);

    /* --- clean up --- */
    nrt_destroy_tensor_set(&in);
    nrt_destroy_tensor_set(&out);
    nrt_tensor_free(&a);
    nrt_tensor_free(&b);
    nrt_tensor_free(&o);
    nrt_tensor_free(&small);
    nrt_tensor_free(&t);
    nrt_tensor_free(&t2);
    nrt_tensor_free(&empty);
    EXPECT("unload", nrt_unload(model), NRT_SUCCESS);
    nrt_close();
    SAY("checks %d failed %d", checks, failures);
    return failures > 0 ? 1 : 0;
}
