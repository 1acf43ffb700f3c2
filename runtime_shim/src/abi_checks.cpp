// Sizes and offsets of every public struct, as nrt-api.md lists them for
// the runtime's own headers (gcc, x86-64): a program built against either
// must see the same layout.

#include "nrt/ndebug_stream.h"
#include "nrt/nrt.h"
#include "nrt/nrt_async.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_version.h"

#include "neuron/runtime_api/nrt_status_table.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

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

// nrt-api-surface.md §4.1, §5.1, §7.1.
static_assert(sizeof(nrt_cc_comm_t) == 32 && alignof(nrt_cc_comm_t) == 8);
static_assert(offsetof(nrt_cc_comm_t, replica_group) == 0);
static_assert(offsetof(nrt_cc_comm_t, rank) == 8);
static_assert(offsetof(nrt_cc_comm_t, rank_n) == 12);
static_assert(offsetof(nrt_cc_comm_t, ctx_device_id) == 16);
static_assert(offsetof(nrt_cc_comm_t, ctx_device_count) == 20);
static_assert(offsetof(nrt_cc_comm_t, vnc) == 24);
static_assert(sizeof(nrt_tensor_list_t) == 16);
static_assert(offsetof(nrt_tensor_list_t, num_tensors) == 8);
static_assert(sizeof(nrt_ucode_img) == 16 && offsetof(nrt_ucode_img, size) == 8);
static_assert(sizeof(nrt_ucode_info) == 32 && offsetof(nrt_ucode_info, dram) == 16);
static_assert(sizeof(nrta_error_t) == 16 && offsetof(nrta_error_t, error_code) == 8);
static_assert(sizeof(nrta_xu_t) == 4 && sizeof(nrta_seq_t) == 8 && sizeof(nrta_xu_id_t) == 2);
static_assert(NRTA_XU_TENSOR_READ == 0 && NRTA_XU_TENSOR_WRITE == 1 && NRTA_XU_TENSOR_OP == 2 && NRTA_XU_COMPUTE == 3 &&
              NRTA_XU_COLLECTIVES == 4 && NRTA_XU_TYPE_NUM == 5);
static_assert(NRTA_SEQ_NUM_MAX == 0x0000FFFFFFFFFFFFull);
static_assert(NRTA_SEQ_GET_XU_ID(0xABCD000000000001ull) == 0xABCD && NRTA_SEQ_GET_SEQ_NUM(0xABCD000000000001ull) == 1);

static_assert(NRT_DTYPE_FLOAT32 == 0xA && NRT_DTYPE_FP8_E5 == 0xF && NRT_DTYPE_INT64 == 0xC);
static_assert(NRT_INSTANCE_TRN2U == 9 && NRT_INSTANCE_SIZE_3XL == 8 && NRT_INSTANCE_SIZE_UNKNOWN == 9);
static_assert(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE == 1205 && NRT_QUEUE_EMPTY == 15 && NRT_CLOSED == 14);

// NRT_STATUS against the one status table (neuron/runtime_api/nrt_status_table.h),
// which nrt_get_status_as_str answers from: each enumerator's identifier names
// its value there, and the table has no other rows. The switch keeps this list
// complete: an enumerator added to nrt_status.h and not here fails the build.
// clang-format off
#define NRT_STATUS_ENUMERATORS(X)                                                                                  \
    X(NRT_SUCCESS) X(NRT_FAILURE) X(NRT_INVALID) X(NRT_INVALID_HANDLE) X(NRT_RESOURCE) X(NRT_TIMEOUT)               \
    X(NRT_HW_ERROR) X(NRT_QUEUE_FULL) X(NRT_LOAD_NOT_ENOUGH_NC) X(NRT_UNSUPPORTED_NEFF_VERSION)                     \
    X(NRT_FAIL_HOST_MEM_ALLOC) X(NRT_UNINITIALIZED) X(NRT_CLOSED) X(NRT_QUEUE_EMPTY) X(NRT_EXEC_UNIT_UNRECOVERABLE) \
    X(NRT_EXEC_BAD_INPUT) X(NRT_EXEC_COMPLETED_WITH_NUM_ERR) X(NRT_EXEC_COMPLETED_WITH_ERR) X(NRT_EXEC_NC_BUSY)     \
    X(NRT_EXEC_OOB) X(NRT_COLL_PENDING) X(NRT_EXEC_HW_ERR_COLLECTIVES) X(NRT_EXEC_HW_ERR_HBM_UE)                   \
    X(NRT_EXEC_HW_ERR_NC_UE) X(NRT_EXEC_HW_ERR_DMA_ABORT) X(NRT_EXEC_SW_NQ_OVERFLOW)                              \
    X(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE) X(NRT_NETWORK_PROXY_FAILURE)
// clang-format on

namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch" // an error even where -Werror is off
constexpr bool listed(NRT_STATUS status) {
    switch (status) {
#define NRT_STATUS_CASE(e) case e:
        NRT_STATUS_ENUMERATORS(NRT_STATUS_CASE)
        return true;
#undef NRT_STATUS_CASE
    }
    return false;
}
#pragma GCC diagnostic pop

constexpr bool table_maps(std::string_view name, NRT_STATUS status) {
    const auto row = neuron::runtime_api::nrt_status_named(name);
    return listed(status) && row && row->value == static_cast<std::uint32_t>(status);
}

#define NRT_STATUS_ONE(e) +1
constexpr std::size_t enumerator_count = 0 NRT_STATUS_ENUMERATORS(NRT_STATUS_ONE);
#undef NRT_STATUS_ONE

} // namespace

#define NRT_STATUS_IN_TABLE(e) static_assert(table_maps(#e, e), "nrt_status_table does not map " #e " to its value");
NRT_STATUS_ENUMERATORS(NRT_STATUS_IN_TABLE)
#undef NRT_STATUS_IN_TABLE
static_assert(neuron::runtime_api::nrt_status_table.size() == enumerator_count,
              "nrt_status_table has a status nrt_status.h does not define");
