// Sizes and offsets of every public struct, as nrt-api.md lists them for
// the runtime's own headers (gcc, x86-64): a program built against either
// must see the same layout.

#include "nrt/ndebug_stream.h"
#include "nrt/nrt.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_version.h"

#include <cstddef>

static_assert(sizeof(NRT_STATUS) == 4);
static_assert(sizeof(nrt_dtype_t) == 4);

static_assert(sizeof(ndebug_stream_event_header_t) == 64);
static_assert(alignof(ndebug_stream_event_header_t) == 8);
static_assert(offsetof(ndebug_stream_event_header_t, data_size) == 0);
static_assert(offsetof(ndebug_stream_event_header_t, type) == 8);
static_assert(offsetof(ndebug_stream_event_header_t, reserved) == 12);

static_assert(sizeof(ndebug_stream_payload_debug_tensor_read_t) == 1024);
static_assert(alignof(ndebug_stream_payload_debug_tensor_read_t) == 8);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, prefix) == 0);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, logical_nc_id) == 512);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, pipe) == 516);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_dtype) == 520);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_shape) == 536);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_data_size) == 600);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, reserved0) == 608);
static_assert(offsetof(ndebug_stream_payload_debug_tensor_read_t, tensor_data) == 1024);

static_assert(sizeof(nrt_instance_info_t) == 32);
static_assert(offsetof(nrt_instance_info_t, family) == 0);
static_assert(offsetof(nrt_instance_info_t, size) == 4);
static_assert(offsetof(nrt_instance_info_t, arch_name) == 8);
static_assert(offsetof(nrt_instance_info_t, device_revision) == 24);

static_assert(sizeof(nrt_version_t) == 224);
static_assert(offsetof(nrt_version_t, rt_detail) == 32);
static_assert(offsetof(nrt_version_t, git_hash) == 160);

static_assert(sizeof(nrt_tensor_info_t) == 296);
static_assert(offsetof(nrt_tensor_info_t, usage) == 256);
static_assert(offsetof(nrt_tensor_info_t, size) == 264);
static_assert(offsetof(nrt_tensor_info_t, dtype) == 272);
static_assert(offsetof(nrt_tensor_info_t, shape) == 280);
static_assert(offsetof(nrt_tensor_info_t, ndim) == 288);
static_assert(offsetof(nrt_tensor_info_array_t, tensor_array) == 8);

static_assert(sizeof(nrt_vnc_memory_stats_t) == 16);
static_assert(sizeof(nrt_tensor_device_allocation_info_t) == 24);
static_assert(sizeof(nrt_tensor_batch_op_t) == 24);
static_assert(sizeof(nrt_tensor_batch_t) == 24);
static_assert(sizeof(nrt_model_info_t) == 4);

static_assert(NRT_DTYPE_FLOAT32 == 0xA && NRT_DTYPE_FP8_E5 == 0xF && NRT_DTYPE_INT64 == 0xC);
static_assert(NRT_INSTANCE_TRN2U == 9 && NRT_INSTANCE_SIZE_3XL == 8 && NRT_INSTANCE_SIZE_UNKNOWN == 9);
static_assert(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE == 1205 && NRT_QUEUE_EMPTY == 15 && NRT_CLOSED == 14);
