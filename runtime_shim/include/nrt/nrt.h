/*
 * neuron-emu runtime shim: the core libnrt API (reference/nrt-api.md §3).
 * Declarations follow the runtime's public header so programs built against
 * either run against the other. Models are emulated model files, not NEFFs
 * (runtime_shim/MODEL_FILE.md).
 */
#pragma once

#include "nrt/nrt_status.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NRT_MAJOR_VERSION 2
#define NRT_MINOR_VERSION 0

typedef struct nrt_model nrt_model_t;
typedef struct nrt_tensor nrt_tensor_t;
typedef void nrt_tensor_set_t;

typedef enum {
    NRT_TENSOR_PLACEMENT_DEVICE,
    NRT_TENSOR_PLACEMENT_HOST, /* deprecated */
    NRT_TENSOR_PLACEMENT_VIRTUAL
} nrt_tensor_placement_t;

typedef enum {
    NRT_FRAMEWORK_TYPE_INVALID = 0,
    NRT_FRAMEWORK_TYPE_NO_FW = 1,
    NRT_FRAMEWORK_TYPE_TENSORFLOW,
    NRT_FRAMEWORK_TYPE_PYTORCH,
    NRT_FRAMEWORK_TYPE_MXNET,
    NRT_FRAMEWORK_TYPE_PRECHECK
} nrt_framework_type_t;

enum {
    NRT_INSTANCE_UNKNOWN = 0,
    NRT_INSTANCE_INF1 = 1,
    NRT_INSTANCE_TRN1 = 2,
    NRT_INSTANCE_TRN1N = 3,
    NRT_INSTANCE_INF2 = 4,
    NRT_INSTANCE_TRN2 = 5,
    NRT_INSTANCE_TRN2N = 6,
    NRT_INSTANCE_INF2E = 7,
    NRT_INSTANCE_TRN2P = 8,
    NRT_INSTANCE_TRN2U = 9,
    NRT_INSTANCE_TRN2E = 10,
    NRT_INSTANCE_TRN2EU = 11,
    NRT_INSTANCE_TRN2AC = 12,
    NRT_INSTANCE_TRN2UAC = 13,
    NRT_INSTANCE_TRN3 = 14,
    NRT_INSTANCE_TRN3PDS98 = 15
};

enum {
    NRT_INSTANCE_SIZE_1XL,
    NRT_INSTANCE_SIZE_2XL,
    NRT_INSTANCE_SIZE_4XL,
    NRT_INSTANCE_SIZE_6XL,
    NRT_INSTANCE_SIZE_8XL,
    NRT_INSTANCE_SIZE_24XL,
    NRT_INSTANCE_SIZE_32XL,
    NRT_INSTANCE_SIZE_48XL,
    NRT_INSTANCE_SIZE_3XL,
    NRT_INSTANCE_SIZE_UNKNOWN,
    NRT_INSTANCE_SIZE_NUM = NRT_INSTANCE_SIZE_UNKNOWN
};

typedef enum nrt_dtype {
    NRT_DTYPE_UNKNOWN = 0,
    NRT_DTYPE_INVALID = 0,
    NRT_DTYPE_UINT64 = 0x1,
    NRT_DTYPE_INT8 = 0x2,
    NRT_DTYPE_UINT8 = 0x3,
    NRT_DTYPE_INT16 = 0x4,
    NRT_DTYPE_UINT16 = 0x5,
    NRT_DTYPE_BFLOAT16 = 0x6,
    NRT_DTYPE_FLOAT16 = 0x7,
    NRT_DTYPE_INT32 = 0x8,
    NRT_DTYPE_UINT32 = 0x9,
    NRT_DTYPE_FLOAT32 = 0xA,
    NRT_DTYPE_FP32R = 0xB,
    NRT_DTYPE_INT64 = 0xC,
    NRT_DTYPE_FP8_E3 = 0xD,
    NRT_DTYPE_FP8_E4 = 0xE,
    NRT_DTYPE_FP8_E5 = 0xF
} nrt_dtype_t;

typedef enum nrt_op_type {
    NRT_OP_ADD = 0,
    NRT_OP_FMA = 1,
    NRT_OP_MAX = 2,
    NRT_OP_MIN = 3,
    NRT_OP_INVALID = 0xF
} nrt_op_type_t;

typedef enum nrt_cc_op_type { NRT_CC_ALLGATHER, NRT_CC_ALLREDUCE, NRT_CC_REDUCESCATTER } nrt_cc_op_type_t;

typedef struct nrt_instance_info {
    uint32_t family; /* NRT_INSTANCE_* */
    uint32_t size;   /* NRT_INSTANCE_SIZE_* */
    char arch_name[16];
    char device_revision[8];
} nrt_instance_info_t;

typedef struct nrt_vnc_memory_stats {
    size_t bytes_used;
    size_t bytes_limit;
} nrt_vnc_memory_stats_t;

typedef struct nrt_tensor_device_allocation_info {
    uint64_t physical_address;
    size_t size;
    int hbm_index;
} nrt_tensor_device_allocation_info_t;

typedef struct nrt_tensor_batch_op {
    uint64_t offset;
    uint64_t size;
    void* buffer;
} nrt_tensor_batch_op_t;

typedef struct nrt_tensor_batch {
    const nrt_tensor_t* tensor;
    const nrt_tensor_batch_op_t* ops;
    uint32_t num_ops;
} nrt_tensor_batch_t;

/* A collective's participants (nrta_cc_prepare): this worker is
 * replica_group[rank] of rank_n. */
typedef struct nrt_cc_comm {
    uint32_t* replica_group;
    uint32_t rank;
    uint32_t rank_n;
    uint32_t ctx_device_id;
    uint32_t ctx_device_count;
    uint32_t vnc;
} nrt_cc_comm_t;

typedef struct nrt_tensor_list {
    nrt_tensor_t** tensors;
    size_t num_tensors;
} nrt_tensor_list_t;

/* Created by nrta_cc_prepare, freed by the runtime once the collective ran. */
typedef struct nrt_cc_context nrt_cc_context_t;

/* --- lifecycle and topology --------------------------------------------- */
/* NO_FW applications may pass "" for both version strings. Takes the
 * NeuronCores selected by NEURON_RT_VISIBLE_CORES / NEURON_RT_NUM_CORES
 * (all by default) exclusively until nrt_close or process exit. */
NRT_STATUS nrt_init(nrt_framework_type_t framework, const char* fw_version, const char* fal_version);
void nrt_close(void);
NRT_STATUS nrt_get_instance_info(nrt_instance_info_t* info, size_t instance_info_len);
/* All logical NeuronCores of the instance; may be called before nrt_init. */
NRT_STATUS nrt_get_total_nc_count(uint32_t* vnc_count);
NRT_STATUS nrt_get_total_vnc_count(uint32_t* vnc_count);
/* The logical NeuronCores this process uses (before nrt_init: would use). */
NRT_STATUS nrt_get_visible_nc_count(uint32_t* vnc_count);
NRT_STATUS nrt_get_visible_vnc_count(uint32_t* vnc_count);
NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t* stats, size_t stats_size_in,
                                    size_t* stats_size_out);
/* The device's index as the host numbers it (outside any container remapping). */
NRT_STATUS nrt_host_device_id_get(int neuron_dev, uint32_t* host_device_id);
/* Routing id of every device, indexed by host device id; *count in: room, out: devices. */
NRT_STATUS nrt_host_device_id_rid_map_get(uint32_t* count, uint32_t* host_did_to_rid_map);

/* --- device memory mapped into the process ------------------------------- */
/* HBM region hbm_idx of a device: NRT_INVALID_HANDLE past the last one. */
NRT_STATUS nrt_get_hbm_mmap_va(int device_id, int hbm_idx, void** addr, size_t* size);
/* A dma-buf for [va, va+size) of device memory registered for EFA peer-direct. */
NRT_STATUS nrt_get_dmabuf_fd(uint64_t va, uint64_t size, int* fd);
/* The PCI BDF of the EFA NIC attached to the device holding va; *len in:
 * room with the NUL, out: length without it. */
NRT_STATUS nrt_get_attached_efa_bdf(const void* va, char* efa_bdf, size_t* len);

/* --- models --------------------------------------------------------------- */
/* vnc: index among this process's cores, -1 for the first free; vnc_count is ignored. */
NRT_STATUS nrt_load(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count, nrt_model_t** model);
NRT_STATUS nrt_load_collectives(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                                uint32_t ctx_device_id, uint32_t ctx_device_count, nrt_model_t** model);
NRT_STATUS nrt_unload(nrt_model_t* model);
NRT_STATUS nrt_get_model_nc_count(const nrt_model_t* model, uint32_t* vnc_count);
NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t* model, uint32_t* vnc_count);

/* --- tensors -------------------------------------------------------------- */
NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t placement, int vnc, size_t size, const char* name,
                               nrt_tensor_t** tensor);
void nrt_tensor_free(nrt_tensor_t** tensor);
NRT_STATUS nrt_tensor_read(const nrt_tensor_t* tensor, void* buf, size_t offset, size_t size);
NRT_STATUS nrt_tensor_write(nrt_tensor_t* tensor, const void* buf, size_t offset, size_t size);
NRT_STATUS nrt_tensor_copy(const nrt_tensor_t* src, size_t src_offset, nrt_tensor_t* dst, size_t dst_offset,
                           size_t size);
size_t nrt_tensor_get_size(const nrt_tensor_t* tensor);
NRT_STATUS nrt_tensor_memset(nrt_tensor_t* tensor, uint64_t offset, int value, size_t size);
NRT_STATUS nrt_tensor_allocate_empty(const char* name, nrt_tensor_t** tensor);
NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t* tensor, void* buffer, size_t size);
NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t* tensor_source, size_t offset, size_t size, const char* name,
                                     nrt_tensor_t** tensor_slice);
void* nrt_tensor_get_va(const nrt_tensor_t* tensor);
NRT_STATUS nrt_tensor_get_device_allocation_info(const nrt_tensor_t* tensor,
                                                 nrt_tensor_device_allocation_info_t* alloc_info);
NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t* batches, uint64_t num_batches, bool unsafe);
NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t* batches, uint64_t num_batches, bool unsafe);
/* Waits up to timeout_us (< 0: no bound) until the output tensor has been
 * completed expected_completion_count times: NRT_TIMEOUT otherwise. */
NRT_STATUS nrt_tensor_check_output_completion(const nrt_tensor_t* output_tensor, int64_t timeout_us,
                                              uint64_t expected_completion_count);
NRT_STATUS nrt_tensor_reset_output_completion(nrt_tensor_t* output_tensor);

/* --- tensor sets ---------------------------------------------------------- */
NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t** result);
void nrt_destroy_tensor_set(nrt_tensor_set_t** tensor_set);
NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t* tensor_set, const char* tensor_name, nrt_tensor_t* tensor);
NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t* tensor_set, const char* tensor_name, nrt_tensor_t** tensor);

/* --- execution ------------------------------------------------------------ */
NRT_STATUS nrt_execute(nrt_model_t* model, const nrt_tensor_set_t* input_set, nrt_tensor_set_t* output_set);
NRT_STATUS nrt_execute_repeat(nrt_model_t* model, const nrt_tensor_set_t* input_set, nrt_tensor_set_t* output_set,
                              int repeat_count);

/* --- collectives ---------------------------------------------------------- */
/* This worker is g_device_id of g_device_count for collectives inside models. */
NRT_STATUS nrt_build_global_comm(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count);
/* The same for host-driven collectives (nrta_cc_*). */
NRT_STATUS nrt_cc_global_comm_init(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count);
/* A stream for host-driven collectives (exported by the runtime, newer than its headers). */
NRT_STATUS nrt_cc_create_stream(uint32_t stream_id);

#ifdef __cplusplus
}
#endif
