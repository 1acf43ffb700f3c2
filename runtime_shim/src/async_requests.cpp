#include "async_requests.h"

#include "api.h"
#include "execution.h"
#include "objects.h"
#include "runtime.h"
#include "sys_trace.h"
#include "tensor_checks.h"
#include "tensor_use.h"

namespace neuron::shim {

namespace {

// The tensors' bytes stay until the request ran (shared: a unit's work is copyable).
std::shared_ptr<tensors_in_use> holding(std::initializer_list<const nrt_tensor_t*> tensors) {
    std::vector<const tensor_storage*> storages;
    for (const auto* t : tensors) storages.push_back(t->storage.get());
    return std::make_shared<tensors_in_use>(std::move(storages));
}

} // namespace

xu_start now(xu_work work) {
    return [work = std::move(work)](nrta_seq_t) { return work; };
}

xu_start execution_start(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output) {
    return [=](nrta_seq_t seq) -> xu_work {
        auto started = std::make_shared<started_execution>(start_execution(fn, model, input, output, 1));
        started->seq = seq;
        return [started] { return finish_execution(*started); };
    };
}

std::uint32_t lnc_of(const nrt_tensor_t* tensor) {
    return tensor->placement == NRT_TENSOR_PLACEMENT_DEVICE && tensor->vnc >= 0
               ? static_cast<std::uint32_t>(tensor->vnc)
               : 0u;
}

work_or_status tensor_write_work(const char* fn, nrt_tensor_t* tensor, const void* buf, std::uint64_t offset,
                                 std::uint64_t size, xu_kind kind, int queue) {
    if (const auto s = check_tensor_io(fn, tensor, buf, offset, size); s != NRT_SUCCESS) return s;
    return async_work{{lnc_of(tensor), kind, queue},
                      now([=, held = holding({tensor})] { return nrt_tensor_write(tensor, buf, offset, size); })};
}

work_or_status tensor_read_work(const char* fn, void* buf, const nrt_tensor_t* tensor, std::uint64_t offset,
                                std::uint64_t size, xu_kind kind, int queue) {
    if (const auto s = check_tensor_io(fn, tensor, buf, offset, size); s != NRT_SUCCESS) return s;
    return async_work{{lnc_of(tensor), kind, queue},
                      now([=, held = holding({tensor})] { return nrt_tensor_read(tensor, buf, offset, size); })};
}

work_or_status tensor_copy_work(const char* fn, const nrt_tensor_t* src, std::uint64_t src_offset, nrt_tensor_t* dst,
                                std::uint64_t dst_offset, std::uint64_t size, int queue) {
    if (const auto s = check_tensor_io(fn, src, src, src_offset, size); s != NRT_SUCCESS) return s;
    if (const auto s = check_tensor_io(fn, dst, dst, dst_offset, size); s != NRT_SUCCESS) return s;
    if (lnc_of(src) != lnc_of(dst))
        return invalid(fn, "both tensors of an asynchronous copy must be on one NeuronCore");
    return async_work{{lnc_of(src), xu_kind::tensor_op, queue}, now([=, held = holding({src, dst})] {
                          return nrt_tensor_copy(src, src_offset, dst, dst_offset, size);
                      })};
}

work_or_status execute_work(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input, nrt_tensor_set_t* output,
                            int queue) {
    if (const auto s = check_execution(fn, model, input, output); s != NRT_SUCCESS) return s;
    return async_work{{static_cast<std::uint32_t>(model->vnc), xu_kind::compute, queue},
                      execution_start(fn, model, input, output)};
}

NRT_STATUS schedule_work(const char* fn, work_or_status checked, nrta_seq_t* req_sequence, xu_done done) {
    if (req_sequence == nullptr) return invalid(fn, "req_sequence is NULL");
    if (auto* status = std::get_if<NRT_STATUS>(&checked)) return *status;
    auto& w = std::get<async_work>(checked);
    sys_trace::api_event trace(sys_trace::event_type_named(fn), w.where.lnc);
    const auto result = schedule(fn, w.where, std::move(w.start), std::move(done));
    if (const auto* status = std::get_if<NRT_STATUS>(&result)) {
        trace.set_status(*status);
        return *status;
    }
    *req_sequence = std::get<nrta_seq_t>(result);
    trace.set_seq(*req_sequence);
    trace.set_status(NRT_SUCCESS);
    return NRT_SUCCESS;
}

} // namespace neuron::shim
