/*
 * An application's NEFFs through the shim: loads each NEFF named (all on
 * NeuronCore 0), shows the first one's tensors as nrt_get_model_tensor_info
 * reports them, executes it with tensors of its own and checks that the
 * outputs keep what the application wrote (the emulator computes no
 * outputs of a NEFF), then unloads the NEFFs from the last to the first.
 *
 * usage: neff_run NEFF [NEFF ...] [--pause] [--together]
 *
 * --together loads the NEFFs from one thread each, all at once.
 * Says "load STATUS" and exits 3 when a load fails. With --pause it stops
 * at "loaded", "executed", "unloaded N" (N NEFFs still loaded) and "closed"
 * until a line arrives on stdin, so the harness reads sysfs at each.
 */
#include "common.h"

#include <nrt/nrt_experimental.h>

#include <pthread.h>

#define MAX_NEFFS 4
#define OUTPUT_BYTE 0xA5

static int pausing = 0;

static void show_tensor(const nrt_tensor_info_t* ti) {
    char shape[128] = "";
    size_t used = 0;
    for (uint32_t d = 0; d < ti->ndim && used < sizeof shape; ++d) {
        used += (size_t)snprintf(shape + used, sizeof shape - used, "%s%u", d == 0 ? "" : "x", ti->shape[d]);
    }
    SAY("tensor name=%s usage=%s dtype=%d size=%zu shape=%s", ti->name,
        ti->usage == NRT_TENSOR_USAGE_INPUT ? "input" : "output", (int)ti->dtype, ti->size, shape);
}

/* Executes `model` once with tensors of its signature; 0 when the outputs kept OUTPUT_BYTE. */
static int execute_once(nrt_model_t* model) {
    nrt_tensor_info_array_t* info = NULL;
    REQUIRE_OK(nrt_get_model_tensor_info(model, &info));
    nrt_tensor_set_t* inputs = NULL;
    nrt_tensor_set_t* outputs = NULL;
    REQUIRE_OK(nrt_allocate_tensor_set(&inputs));
    REQUIRE_OK(nrt_allocate_tensor_set(&outputs));
    nrt_tensor_t** tensors = (nrt_tensor_t**)calloc(info->tensor_count, sizeof(nrt_tensor_t*));
    unsigned char* bytes = NULL;
    if (tensors == NULL) return 1;
    for (uint64_t t = 0; t < info->tensor_count; ++t) {
        const nrt_tensor_info_t* ti = &info->tensor_array[t];
        show_tensor(ti);
        REQUIRE_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, ti->size, ti->name, &tensors[t]));
        const int input = ti->usage == NRT_TENSOR_USAGE_INPUT;
        REQUIRE_OK(nrt_add_tensor_to_tensor_set(input ? inputs : outputs, ti->name, tensors[t]));
        bytes = (unsigned char*)realloc(bytes, ti->size);
        if (bytes == NULL) return 1;
        for (size_t i = 0; i < ti->size; ++i) bytes[i] = input ? (unsigned char)(i * 7 + t) : OUTPUT_BYTE;
        REQUIRE_OK(nrt_tensor_write(tensors[t], bytes, 0, ti->size));
    }
    REQUIRE_OK(nrt_execute(model, inputs, outputs));
    for (uint64_t t = 0; t < info->tensor_count; ++t) {
        const nrt_tensor_info_t* ti = &info->tensor_array[t];
        if (ti->usage != NRT_TENSOR_USAGE_OUTPUT) continue;
        bytes = (unsigned char*)realloc(bytes, ti->size);
        if (bytes == NULL) return 1;
        REQUIRE_OK(nrt_tensor_read(tensors[t], bytes, 0, ti->size));
        for (size_t i = 0; i < ti->size; ++i) {
            if (bytes[i] != OUTPUT_BYTE) {
                SAY("FAIL output '%s' byte %zu changed to 0x%02x", ti->name, i, bytes[i]);
                return 1;
            }
        }
        SAY("output %s unchanged", ti->name);
    }
    nrt_destroy_tensor_set(&inputs);
    nrt_destroy_tensor_set(&outputs);
    for (uint64_t t = 0; t < info->tensor_count; ++t) nrt_tensor_free(&tensors[t]);
    free(tensors);
    free(bytes);
    REQUIRE_OK(nrt_free_model_tensor_info(info));
    return 0;
}

struct load_job {
    const char* file;
    nrt_model_t* model;
    NRT_STATUS status;
};

static void* load_one(void* arg) {
    struct load_job* job = (struct load_job*)arg;
    size_t size = 0;
    char* bytes = read_whole_file(job->file, &size);
    if (bytes == NULL) {
        job->status = NRT_FAILURE;
        return NULL;
    }
    job->status = nrt_load(bytes, size, 0, -1, &job->model);
    free(bytes);
    return NULL;
}

int main(int argc, char** argv) {
    struct load_job jobs[MAX_NEFFS];
    pthread_t threads[MAX_NEFFS];
    int count = 0;
    int together = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--pause") == 0) {
            pausing = 1;
        } else if (strcmp(argv[i], "--together") == 0) {
            together = 1;
        } else if (count < MAX_NEFFS) {
            jobs[count].file = argv[i];
            jobs[count].model = NULL;
            ++count;
        }
    }
    if (count == 0) {
        fprintf(stderr, "usage: neff_run NEFF [NEFF ...] [--pause]\n");
        return 64;
    }
    REQUIRE_OK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
    nrt_model_t* models[MAX_NEFFS] = {NULL};
    for (int i = 0; i < count; ++i) {
        if (!together) {
            load_one(&jobs[i]);
        } else if (pthread_create(&threads[i], NULL, load_one, &jobs[i]) != 0) {
            SAY("FAIL pthread_create");
            return 1;
        }
    }
    for (int i = 0; i < count; ++i) {
        if (together) pthread_join(threads[i], NULL);
    }
    for (int i = 0; i < count; ++i) {
        if (jobs[i].status != NRT_SUCCESS) {
            SAY("load %s", nrt_get_status_as_str(jobs[i].status));
            nrt_close();
            return 3;
        }
        models[i] = jobs[i].model;
    }
    checkpoint(pausing, "loaded");
    if (execute_once(models[0]) != 0) return 1;
    checkpoint(pausing, "executed");
    for (int i = count - 1; i >= 0; --i) {
        REQUIRE_OK(nrt_unload(models[i]));
        char name[32];
        snprintf(name, sizeof name, "unloaded %d", i);
        checkpoint(pausing, name);
    }
    nrt_close();
    checkpoint(pausing, "closed");
    SAY("PASS");
    return 0;
}
