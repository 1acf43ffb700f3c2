/*
 * neuron-emu runtime shim: model introspection (reference/nrt-api.md §3.3).
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
    uint32_t *shape;
    uint32_t ndim;
} nrt_tensor_info_t;

typedef struct nrt_tensor_info_array {
    uint64_t tensor_count;
    nrt_tensor_info_t tensor_array[];
} nrt_tensor_info_array_t;

typedef struct nrt_model_info {
    uint32_t vnc;
} nrt_model_info_t;

NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model, nrt_tensor_info_array_t **tensor_info);
NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info);
NRT_STATUS nrt_get_model_instance_count(nrt_model_t *model, uint32_t *instance_count);
NRT_STATUS nrt_get_model_info(const nrt_model_t *model, nrt_model_info_t *info, size_t info_size_in,
                              size_t *info_size_out);

#ifdef __cplusplus
}
#endif
