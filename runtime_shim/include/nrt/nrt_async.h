/*
 * neuron-emu runtime shim: the explicit asynchronous API in its 2.x form
 * (reference/nrt-api-surface.md §7). Work is scheduled on execution units
 * (XUs: per logical core, a kind and a queue) and observed through sequence
 * numbers; failures collect in error trackers. The library also exports the
 * 3.0 form of eight of these functions under the version NRT_3.0.0 (§7.5)
 * for binaries built against a 2.29 or later runtime.
 */
#pragma once

#include "nrt/nrt.h"
#include <assert.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nrta_xu {
    NRTA_XU_TENSOR_READ = 0,
    NRTA_XU_TENSOR_WRITE = 1,
    NRTA_XU_TENSOR_OP = 2, /* tensor operations other than read and write */
    NRTA_XU_COMPUTE = 3,
    NRTA_XU_COLLECTIVES = 4,
    NRTA_XU_TYPE_NUM = 5
} nrta_xu_t;

/* The top 16 bits name the XU, the low 48 count its requests from 1. */
typedef uint64_t nrta_seq_t;
typedef uint16_t nrta_xu_id_t;

#define NRTA_SEQ_NUM_MAX ((1ull << 48) - 1)
#define NRTA_SEQ_NUM_MASK NRTA_SEQ_NUM_MAX
#define NRTA_SEQ_GET_SEQ_NUM(s) ((s)&NRTA_SEQ_NUM_MASK)
#define NRTA_SEQ_GET_XU_ID(s) ((s) >> 48)

typedef struct nrta_error {
    nrta_seq_t seq_id;
    uint64_t error_code; /* an NRT_STATUS */
} nrta_error_t;
static_assert(sizeof(nrta_error_t) == 16, "nrta_error_t is 16 bytes");

typedef struct nrta_error_tracker nrta_error_tracker_t;

/* --- scheduling: each returns once the request is queued ------------------- */
NRT_STATUS nrta_tensor_write(nrt_tensor_t* tensor, const void* buf, uint64_t offset, uint64_t size, int queue,
                             nrta_error_tracker_t* err, nrta_seq_t* req_sequence);
NRT_STATUS nrta_tensor_read(void* buf, nrt_tensor_t* tensor, uint64_t offset, uint64_t size, int queue,
                            nrta_error_tracker_t* err, nrta_seq_t* req_sequence);
NRT_STATUS nrta_tensor_copy(nrt_tensor_t* src, uint64_t src_offset, nrt_tensor_t* dst, uint64_t dst_offset,
                            uint64_t size, int queue, nrta_error_tracker_t* err, nrta_seq_t* req_sequence);
NRT_STATUS nrta_execute_schedule(nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output, int queue,
                                 nrta_error_tracker_t* err, nrta_seq_t* req_sequence);
NRT_STATUS nrta_cc_prepare(nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output, nrt_dtype_t dtype,
                           nrt_op_type_t op, nrt_cc_op_type_t cc_op, nrt_cc_context_t** cc_ctx);
NRT_STATUS nrta_cc_schedule(nrt_cc_context_t** cc_ctx, int queue, nrta_error_tracker_t* err, nrta_seq_t* req_sequence);

/* --- completion ------------------------------------------------------------ */
NRT_STATUS nrta_is_completed(nrta_seq_t seq, bool* is_completed);
/* The last completed request of an XU. */
NRT_STATUS nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t* seq);
/* An fd that polls readable once seq completed; the caller closes it. */
NRT_STATUS nrta_get_completion_handle(nrta_seq_t seq, int* fd);

/* --- error tracking --------------------------------------------------------- */
NRT_STATUS nrta_error_tracker_create(uint32_t lnc_idx, nrta_error_tracker_t** error_tracker);
void nrta_error_tracker_destroy(nrta_error_tracker_t* error_tracker);
/* The failed requests so far; the list stays valid until the next call or destroy. */
NRT_STATUS nrta_error_tracker_get_list(nrta_error_tracker_t* error_tracker, const nrta_error_t** list,
                                       size_t* error_count);

#ifdef __cplusplus
}
#endif
