/*
 * run_model MODEL_FILE [EXECUTIONS]: the runtime guide's canonical call
 * sequence against libnrt: init, load, allocate a tensor per model tensor,
 * fill the inputs (input k, element i holds 10 * (k + 1) + i), execute,
 * print the outputs, unload, free, close. Built as build/bin/nrt-run-model.
 */
#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#include <stdio.h>
#include <stdlib.h>

#define MAX_TENSORS 64

static void* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    void* bytes = malloc(length > 0 ? (size_t)length : 1);
    *size = bytes != NULL && length > 0 ? fread(bytes, 1, (size_t)length, f) : 0;
    fclose(f);
    return bytes;
}

static int failed(const char* call, NRT_STATUS status) {
    fprintf(stderr, "run_model: %s failed: %s (%d)\n", call, nrt_get_status_as_str(status), (int)status);
    return 1;
}

static void fill_input(nrt_tensor_t* t, const nrt_tensor_info_t* info, int k) {
    if (info->dtype != NRT_DTYPE_FLOAT32) return; /* the example fills float32 inputs only */
    size_t n = info->size / sizeof(float);
    float* values = malloc(info->size);
    for (size_t i = 0; i < n; i++) values[i] = (float)(10 * (k + 1) + (int)i);
    nrt_tensor_write(t, values, 0, info->size);
    free(values);
}

static void print_output(nrt_tensor_t* t, const nrt_tensor_info_t* info) {
    printf("%s:", info->name);
    if (info->dtype == NRT_DTYPE_FLOAT32) {
        size_t n = info->size / sizeof(float);
        float* values = malloc(info->size);
        nrt_tensor_read(t, values, 0, info->size);
        for (size_t i = 0; i < n && i < 16; i++) printf(" %g", values[i]);
        free(values);
    } else {
        printf(" (%zu bytes)", info->size);
    }
    printf("\n");
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL_FILE [EXECUTIONS]\n", argv[0]);
        return 2;
    }
    int executions = argc > 2 ? atoi(argv[2]) : 1;
    size_t size = 0;
    void* model_file = read_file(argv[1], &size);
    if (model_file == NULL) {
        fprintf(stderr, "run_model: cannot read %s\n", argv[1]);
        return 2;
    }

    NRT_STATUS s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    if (s != NRT_SUCCESS) return failed("nrt_init", s);
    nrt_model_t* model = NULL;
    s = nrt_load(model_file, size, -1, -1, &model);
    free(model_file);
    if (s != NRT_SUCCESS) return failed("nrt_load", s);

    nrt_tensor_info_array_t* info = NULL;
    if ((s = nrt_get_model_tensor_info(model, &info)) != NRT_SUCCESS) return failed("nrt_get_model_tensor_info", s);
    nrt_tensor_set_t* inputs = NULL;
    nrt_tensor_set_t* outputs = NULL;
    nrt_allocate_tensor_set(&inputs);
    nrt_allocate_tensor_set(&outputs);
    nrt_tensor_t* tensors[MAX_TENSORS] = {0};
    uint64_t count = info->tensor_count < MAX_TENSORS ? info->tensor_count : MAX_TENSORS;
    for (uint64_t i = 0; i < count; i++) {
        const nrt_tensor_info_t* t = &info->tensor_array[i];
        s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, t->size, t->name, &tensors[i]);
        if (s != NRT_SUCCESS) return failed("nrt_tensor_allocate", s);
        if (t->usage == NRT_TENSOR_USAGE_INPUT) {
            fill_input(tensors[i], t, (int)i);
            nrt_add_tensor_to_tensor_set(inputs, t->name, tensors[i]);
        } else {
            nrt_add_tensor_to_tensor_set(outputs, t->name, tensors[i]);
        }
    }

    int status = 0;
    for (int e = 0; e < executions; e++) {
        s = nrt_execute(model, inputs, outputs);
        printf("execution %d: %s\n", e + 1, nrt_get_status_as_str(s));
        if (s != NRT_SUCCESS) status = 1;
    }
    for (uint64_t i = 0; i < count; i++) {
        if (info->tensor_array[i].usage == NRT_TENSOR_USAGE_OUTPUT) print_output(tensors[i], &info->tensor_array[i]);
    }

    nrt_unload(model);
    nrt_destroy_tensor_set(&inputs);
    nrt_destroy_tensor_set(&outputs);
    for (uint64_t i = 0; i < count; i++) nrt_tensor_free(&tensors[i]);
    nrt_free_model_tensor_info(info);
    nrt_close();
    return status;
}
