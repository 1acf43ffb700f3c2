/*
 * neuron-emu runtime shim: model introspection, the implicit async mode,
 * collectives and memory helpers (reference/nrt-api-surface.md §5).
 */
#pragma once

#include "nrt/nrt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NRT_TENSOR_NAME_MAX 256

typedef enum nrt_tensor_usage { NRT_TENSOR_USAGE_INPUT = 0, NRT_TENSOR_USAGE_OUTPUT } nrt_tensor_usage_t;

typedef struct nrt_tensor_info {
    char name[NRT_TENSOR_NAME_MAX];
    nrt_tensor_usage_t usage;
    size_t size;
    nrt_dtype_t dtype;
    uint32_t* shape;
    uint32_t ndim;
} nrt_tensor_info_t;

typedef struct nrt_tensor_info_array {
    uint64_t tensor_count;
    nrt_tensor_info_t tensor_array[];
} nrt_tensor_info_array_t;

typedef struct nrt_model_info {
    uint32_t vnc;
} nrt_model_info_t;

NRT_STATUS nrt_get_model_tensor_info(nrt_model_t* model, nrt_tensor_info_array_t** tensor_info);
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t* tensor_info);
NRT_STATUS nrt_get_model_instance_count(nrt_model_t* model, uint32_t* instance_count);
NRT_STATUS nrt_get_model_info(const nrt_model_t* model, nrt_model_info_t* info, size_t info_size_in,
                              size_t* info_size_out);

/* Replacement pooling-engine microcode, given before nrt_init. */
typedef struct nrt_ucode_img {
    uint8_t* bin;
    size_t size;
} nrt_ucode_img;

typedef struct nrt_ucode_info {
    nrt_ucode_img iram;
    nrt_ucode_img dram;
} nrt_ucode_info;

/* Called with each execution's final status in the implicit async mode
 * (NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS). */
typedef void (*NRT_ASYNC_EXEC_STATUS_CALLBACK)(void* params, uint32_t model_id, uint32_t vnc, uint64_t job_id,
                                               NRT_STATUS status);

NRT_STATUS nrt_register_async_exec_callback(NRT_ASYNC_EXEC_STATUS_CALLBACK callback, void* params);
/* Returns once no execution is queued on vnc. */
NRT_STATUS nrt_async_drain_queued_execs(int32_t vnc);

/* Collectives among g_device_count workers; all_gather's output holds
 * g_device_count * rank_input_size bytes ordered by g_device_id. */
NRT_STATUS nrt_barrier(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count);
NRT_STATUS nrt_all_gather(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count, uint32_t rank_input_size,
                          void* input, void* output);

NRT_STATUS nrt_trace_start(bool trace_mem);
NRT_STATUS nrt_trace_stop(const char* filename);

/* Copies host bytes into device memory mapped into the process
 * (nrt_get_hbm_mmap_va, nrt_tensor_get_va). */
NRT_STATUS nrt_memcpy_to_device(void* dest, const void* src, size_t size);
NRT_STATUS nrt_set_pool_eng_ucode(const nrt_ucode_info* ucode_info);
/* The collectives layer's network plugin: NULL with *err and err_msg set when there is none. */
void* nrt_get_libnccl_net(int* err, char* err_msg, size_t err_msg_size);

#ifdef __cplusplus
}
#endif
