/*
 * The runtime developer guide's canonical call sequence (nrt-api.md §3.6)
 * on a model whose single output is the element-wise sum of its float32
 * inputs (runtime_shim/models/add.yaml), with the output checked.
 *
 * usage: canonical MODEL_FILE [--pause]
 *
 * With --pause it says a checkpoint line ("loaded", "executed", "unloaded",
 * "freed", "closed") after each step and waits for a line on stdin, so that
 * the harness can read sysfs at each of them. Exit 0 when every call
 * succeeded and the output is right; otherwise a "FAIL ..." line and exit 1
 * (2 when nrt_init fails).
 *
 * Also compiled as C++17 (runtime_shim/tests/cxx/canonical.cpp): the headers
 * must be usable from both.
 */
#include "common.h"

#include <nrt/nrt_experimental.h>

static int pausing = 0;

/* The value input `k` holds at element `i`. */
static float input_value(uint64_t k, size_t i) { return (float)(k + 1) * 0.5f + (float)i * (float)(k + 1); }

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: canonical MODEL_FILE [--pause]\n");
        return 64;
    }
    pausing = argc > 2 && strcmp(argv[2], "--pause") == 0;

    size_t model_size = 0;
    char* model_bytes = read_whole_file(argv[1], &model_size);
    if (model_bytes == NULL) {
        SAY("FAIL cannot read %s", argv[1]);
        return 1;
    }

    /* 1. */
    NRT_STATUS status = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    if (status != NRT_SUCCESS) {
        SAY("FAIL nrt_init returned %s (%d)", nrt_get_status_as_str(status), (int)status);
        free(model_bytes);
        return 2;
    }

    /* 2. */
    nrt_model_t* model = NULL;
    REQUIRE_OK(nrt_load(model_bytes, model_size, -1, -1, &model));
    free(model_bytes);
    checkpoint(pausing, "loaded");

    /* 3. */
    nrt_tensor_info_array_t* info = NULL;
    REQUIRE_OK(nrt_get_model_tensor_info(model, &info));

    /* 4. */
    nrt_tensor_set_t* inputs = NULL;
    nrt_tensor_set_t* outputs = NULL;
    REQUIRE_OK(nrt_allocate_tensor_set(&inputs));
    REQUIRE_OK(nrt_allocate_tensor_set(&outputs));
    nrt_tensor_t** tensors = (nrt_tensor_t**)calloc(info->tensor_count, sizeof(nrt_tensor_t*));
    if (tensors == NULL) return 1;
    uint64_t input_count = 0;
    for (uint64_t t = 0; t < info->tensor_count; ++t) {
        const nrt_tensor_info_t* ti = &info->tensor_array[t];
        if (ti->dtype != NRT_DTYPE_FLOAT32 || ti->size % sizeof(float) != 0) {
            SAY("FAIL tensor '%s' is not float32 (dtype %d, %zu bytes)", ti->name, (int)ti->dtype, ti->size);
            return 1;
        }
        REQUIRE_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, ti->size, ti->name, &tensors[t]));
        nrt_tensor_set_t* set = ti->usage == NRT_TENSOR_USAGE_INPUT ? inputs : outputs;
        REQUIRE_OK(nrt_add_tensor_to_tensor_set(set, ti->name, tensors[t]));
        if (ti->usage == NRT_TENSOR_USAGE_INPUT) ++input_count;
    }

    /* 5. */
    uint64_t k = 0;
    for (uint64_t t = 0; t < info->tensor_count; ++t) {
        const nrt_tensor_info_t* ti = &info->tensor_array[t];
        if (ti->usage != NRT_TENSOR_USAGE_INPUT) continue;
        const size_t n = ti->size / sizeof(float);
        float* values = (float*)malloc(ti->size);
        if (values == NULL) return 1;
        for (size_t i = 0; i < n; ++i) values[i] = input_value(k, i);
        REQUIRE_OK(nrt_tensor_write(tensors[t], values, 0, ti->size));
        free(values);
        ++k;
    }

    /* 6. */
    REQUIRE_OK(nrt_execute(model, inputs, outputs));

    /* 7. */
    for (uint64_t t = 0; t < info->tensor_count; ++t) {
        const nrt_tensor_info_t* ti = &info->tensor_array[t];
        if (ti->usage != NRT_TENSOR_USAGE_OUTPUT) continue;
        const size_t n = ti->size / sizeof(float);
        float* values = (float*)malloc(ti->size);
        if (values == NULL) return 1;
        REQUIRE_OK(nrt_tensor_read(tensors[t], values, 0, ti->size));
        char shown[256];
        format_elements("float32", values, ti->size, shown, sizeof shown, 8);
        SAY("output %s = %s", ti->name, shown);
        for (size_t i = 0; i < n; ++i) {
            float expected = 0;
            for (uint64_t j = 0; j < input_count; ++j) expected += input_value(j, i);
            if (values[i] != expected) {
                SAY("FAIL output '%s' element %zu is %g, expected %g", ti->name, i, (double)values[i],
                    (double)expected);
                free(values);
                return 1;
            }
        }
        free(values);
    }
    checkpoint(pausing, "executed");

    /* 8. */
    REQUIRE_OK(nrt_unload(model));
    checkpoint(pausing, "unloaded");

    /* 9. */
    nrt_destroy_tensor_set(&inputs);
    nrt_destroy_tensor_set(&outputs);
    if (inputs != NULL || outputs != NULL) {
        SAY("FAIL nrt_destroy_tensor_set did not clear the handle");
        return 1;
    }
    for (uint64_t t = 0; t < info->tensor_count; ++t) {
        nrt_tensor_free(&tensors[t]);
        if (tensors[t] != NULL) {
            SAY("FAIL nrt_tensor_free did not clear the handle");
            return 1;
        }
    }
    free(tensors);
    REQUIRE_OK(nrt_free_model_tensor_info(info));
    checkpoint(pausing, "freed");

    /* 10. */
    nrt_close();
    checkpoint(pausing, "closed");
    SAY("PASS");
    return 0;
}
