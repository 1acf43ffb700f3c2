// The asynchronous API in its 2.x form (nrt-api-surface.md §7), the default
// version NRT_2.0.0 of these names; api_async_v3.cpp has the 3.0 form.

#include "nrt/nrt_async.h"

#include "api.h"
#include "async_requests.h"
#include "collective_requests.h"
#include "error_tracker.h"

#include <memory>

using namespace neuron::shim;

namespace {

// The tracker hears of every request that fails; a NULL tracker drops failures.
xu_done report_to(nrta_error_tracker_t* err) {
    if (err == nullptr) return {};
    return [errors = err->errors](nrta_seq_t seq, NRT_STATUS status) {
        if (status != NRT_SUCCESS) errors->add(seq, status);
    };
}

NRT_STATUS schedule_2x(const char* fn, work_or_status work, nrta_error_tracker_t* err, nrta_seq_t* seq) {
    return guarded(fn, [&] { return schedule_work(fn, std::move(work), seq, report_to(err)); });
}

} // namespace

NRT_API NRT_STATUS v2_nrta_tensor_write(nrt_tensor_t* tensor, const void* buf, uint64_t offset, uint64_t size,
                                        int queue, nrta_error_tracker_t* err, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_tensor_write";
    return schedule_2x(fn, tensor_write_work(fn, tensor, buf, offset, size, xu_kind::tensor_write, queue), err,
                       req_sequence);
}
__asm__(".symver v2_nrta_tensor_write, nrta_tensor_write@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_tensor_read(void* buf, nrt_tensor_t* tensor, uint64_t offset, uint64_t size, int queue,
                                       nrta_error_tracker_t* err, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_tensor_read";
    return schedule_2x(fn, tensor_read_work(fn, buf, tensor, offset, size, xu_kind::tensor_read, queue), err,
                       req_sequence);
}
__asm__(".symver v2_nrta_tensor_read, nrta_tensor_read@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_tensor_copy(nrt_tensor_t* src, uint64_t src_offset, nrt_tensor_t* dst, uint64_t dst_offset,
                                       uint64_t size, int queue, nrta_error_tracker_t* err, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_tensor_copy";
    return schedule_2x(fn, tensor_copy_work(fn, src, src_offset, dst, dst_offset, size, queue), err, req_sequence);
}
__asm__(".symver v2_nrta_tensor_copy, nrta_tensor_copy@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_execute_schedule(nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output,
                                            int queue, nrta_error_tracker_t* err, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_execute_schedule";
    return schedule_2x(fn, execute_work(fn, model, input, output, queue), err, req_sequence);
}
__asm__(".symver v2_nrta_execute_schedule, nrta_execute_schedule@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_cc_prepare(nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output,
                                      nrt_dtype_t dtype, nrt_op_type_t op, nrt_cc_op_type_t cc_op,
                                      nrt_cc_context_t** cc_ctx) {
    return prepare_collective("nrta_cc_prepare", comm, input, output, raw_value(dtype), raw_value(op), raw_value(cc_op),
                              cc_ctx);
}
__asm__(".symver v2_nrta_cc_prepare, nrta_cc_prepare@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_cc_schedule(nrt_cc_context_t** cc_ctx, int queue, nrta_error_tracker_t* err,
                                       nrta_seq_t* req_sequence) {
    const char* fn = "nrta_cc_schedule";
    const auto status = schedule_2x(fn, collective_work(fn, cc_ctx, queue), err, req_sequence);
    if (status == NRT_SUCCESS) *cc_ctx = nullptr; // the runtime's now
    return status;
}
__asm__(".symver v2_nrta_cc_schedule, nrta_cc_schedule@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_is_completed(nrta_seq_t seq, bool* is_completed) {
    return neuron::shim::is_completed("nrta_is_completed", seq, is_completed);
}
__asm__(".symver v2_nrta_is_completed, nrta_is_completed@@NRT_2.0.0");

NRT_API NRT_STATUS v2_nrta_get_sequence(uint32_t lnc, nrta_xu_t xu, int queue, nrta_seq_t* seq) {
    const auto kind = raw_value(xu);
    if (kind < NRTA_XU_TENSOR_READ || kind >= NRTA_XU_TYPE_NUM) {
        return invalid("nrta_get_sequence", "unknown execution unit type " + std::to_string(kind));
    }
    return last_completed("nrta_get_sequence", {lnc, static_cast<xu_kind>(kind), queue}, seq);
}
__asm__(".symver v2_nrta_get_sequence, nrta_get_sequence@@NRT_2.0.0");

NRT_API NRT_STATUS nrta_get_completion_handle(nrta_seq_t seq, int* fd) {
    const char* fn = "nrta_get_completion_handle";
    if (fd == nullptr) return invalid(fn, "fd is NULL");
    return guarded(fn, [&] { return completion_fd(fn, seq, *fd); });
}

NRT_API NRT_STATUS nrta_error_tracker_create(uint32_t lnc_idx, nrta_error_tracker_t** error_tracker) {
    const char* fn = "nrta_error_tracker_create";
    if (error_tracker == nullptr) return invalid(fn, "error_tracker is NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto s = check_address(fn, {lnc_idx, xu_kind::compute, 0}); s != NRT_SUCCESS) return s;
        auto tracker = std::make_unique<nrta_error_tracker>();
        tracker->lnc = lnc_idx;
        *error_tracker = tracker.release();
        return NRT_SUCCESS;
    });
}

NRT_API void nrta_error_tracker_destroy(nrta_error_tracker_t* error_tracker) { delete error_tracker; }

NRT_API NRT_STATUS nrta_error_tracker_get_list(nrta_error_tracker_t* error_tracker, const nrta_error_t** list,
                                               size_t* error_count) {
    const char* fn = "nrta_error_tracker_get_list";
    if (error_tracker == nullptr || list == nullptr || error_count == nullptr) {
        return invalid(fn, "error_tracker, list and error_count must not be NULL");
    }
    return guarded(fn, [&] {
        error_tracker->listed = error_tracker->errors->snapshot();
        *list = error_tracker->listed.empty() ? nullptr : error_tracker->listed.data();
        *error_count = error_tracker->listed.size();
        return NRT_SUCCESS;
    });
}
