// The asynchronous API in its 3.0 form (nrt-api-surface.md §7.5), exported
// as version NRT_3.0.0 of the same names for binaries built against a 2.29
// or later runtime: tensor operations share one TENSOR_OP unit kind and name
// their logical core, and each request's status is written to `ret` when it
// completes. The caller keeps `ret` alive until then.

#include "api.h"
#include "async_requests.h"
#include "collective_requests.h"
#include "objects.h"

using namespace neuron::shim;

namespace {

// nrta_xu_t of the 3.0 API.
enum xu_v3 : int { xu_v3_tensor_op = 0, xu_v3_compute = 1, xu_v3_collectives = 2, xu_v3_count = 3 };

xu_done report_to(NRT_STATUS* ret) {
    if (ret == nullptr) return {};
    return [ret](nrta_seq_t, NRT_STATUS status) { *ret = status; };
}

NRT_STATUS schedule_v3(const char* fn, work_or_status work, NRT_STATUS* ret, nrta_seq_t* seq) {
    return guarded(fn, [&] { return schedule_work(fn, std::move(work), seq, report_to(ret)); });
}

// The request runs on the logical core the caller names: a device tensor's
// own; any core for a tensor in host memory.
work_or_status on_lnc(const char* fn, work_or_status work, int lnc_idx, const nrt_tensor_t* tensor) {
    auto* w = std::get_if<async_work>(&work);
    if (w == nullptr) return work;
    if (lnc_idx < 0) return invalid(fn, "lnc_idx " + std::to_string(lnc_idx) + " is negative");
    if (tensor->placement != NRT_TENSOR_PLACEMENT_DEVICE) {
        w->where.lnc = static_cast<std::uint32_t>(lnc_idx);
    } else if (static_cast<int>(w->where.lnc) != lnc_idx) {
        return invalid(fn, "the tensor is on NeuronCore " + std::to_string(w->where.lnc) + ", not " +
                               std::to_string(lnc_idx));
    }
    return work;
}

} // namespace

NRT_API NRT_STATUS v3_nrta_tensor_write(nrt_tensor_t* tensor, const void* buf, uint64_t offset, uint64_t size,
                                        int lnc_idx, int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_tensor_write";
    return schedule_v3(
        fn, on_lnc(fn, tensor_write_work(fn, tensor, buf, offset, size, xu_kind::tensor_op, queue), lnc_idx, tensor),
        ret, req_sequence);
}
__asm__(".symver v3_nrta_tensor_write, nrta_tensor_write@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_tensor_read(void* buf, nrt_tensor_t* tensor, uint64_t offset, uint64_t size, int lnc_idx,
                                       int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_tensor_read";
    return schedule_v3(
        fn, on_lnc(fn, tensor_read_work(fn, buf, tensor, offset, size, xu_kind::tensor_op, queue), lnc_idx, tensor),
        ret, req_sequence);
}
__asm__(".symver v3_nrta_tensor_read, nrta_tensor_read@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_tensor_copy(nrt_tensor_t* src, uint64_t src_offset, nrt_tensor_t* dst, uint64_t dst_offset,
                                       uint64_t size, int lnc_idx, int queue, NRT_STATUS* ret,
                                       nrta_seq_t* req_sequence) {
    const char* fn = "nrta_tensor_copy";
    return schedule_v3(fn,
                       on_lnc(fn, tensor_copy_work(fn, src, src_offset, dst, dst_offset, size, queue), lnc_idx, src),
                       ret, req_sequence);
}
__asm__(".symver v3_nrta_tensor_copy, nrta_tensor_copy@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_execute_schedule(nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output,
                                            int queue, NRT_STATUS* ret, nrta_seq_t* req_sequence) {
    const char* fn = "nrta_execute_schedule";
    return schedule_v3(fn, execute_work(fn, model, input, output, queue), ret, req_sequence);
}
__asm__(".symver v3_nrta_execute_schedule, nrta_execute_schedule@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_cc_prepare(nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output,
                                      nrt_dtype_t dtype, nrt_op_type_t op, nrt_cc_op_type_t cc_op,
                                      nrt_cc_context_t** cc_ctx) {
    return prepare_collective("nrta_cc_prepare", comm, input, output, raw_value(dtype), raw_value(op), raw_value(cc_op),
                              cc_ctx);
}
__asm__(".symver v3_nrta_cc_prepare, nrta_cc_prepare@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_cc_schedule(nrt_cc_context_t** cc_ctx, int queue, NRT_STATUS* ret,
                                       nrta_seq_t* req_sequence) {
    const char* fn = "nrta_cc_schedule";
    const auto status = schedule_v3(fn, collective_work(fn, cc_ctx, queue), ret, req_sequence);
    if (status == NRT_SUCCESS) *cc_ctx = nullptr; // the runtime's now
    return status;
}
__asm__(".symver v3_nrta_cc_schedule, nrta_cc_schedule@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_is_completed(nrta_seq_t seq, bool* is_completed) {
    return neuron::shim::is_completed("nrta_is_completed", seq, is_completed);
}
__asm__(".symver v3_nrta_is_completed, nrta_is_completed@NRT_3.0.0");

NRT_API NRT_STATUS v3_nrta_get_sequence(uint32_t lnc, int xu, int queue, nrta_seq_t* seq) {
    if (xu < 0 || xu >= xu_v3_count)
        return invalid("nrta_get_sequence", "unknown execution unit type " + std::to_string(xu));
    const auto kind = xu == xu_v3_tensor_op ? xu_kind::tensor_op
                      : xu == xu_v3_compute ? xu_kind::compute
                                            : xu_kind::collectives;
    return last_completed("nrta_get_sequence", {lnc, kind, queue}, seq);
}
__asm__(".symver v3_nrta_get_sequence, nrta_get_sequence@NRT_3.0.0");
