#include "collective_requests.h"

#include "api.h"
#include "collective_reduce.h"
#include "execution.h"
#include "hardware_error_log.h"
#include "objects.h"
#include "runtime.h"

#include <cstring>
#include <memory>

using neuron::protocol::message_type;

struct nrt_cc_context {
    std::string group;
    std::uint32_t rank = 0;
    std::uint32_t ranks = 1;
    std::uint32_t vnc = 0;
    std::vector<nrt_tensor*> inputs;
    std::vector<nrt_tensor*> outputs;
    long long dtype = 0;
    long long op = 0;
    long long cc_op = 0;
};

namespace neuron::shim {
namespace {

execution_place place_of(std::uint32_t global_core) {
    const auto session = runtime::get().session();
    const auto per_device = std::max<std::uint32_t>(session.instance.physical_cores_per_device, 1);
    const auto physical = global_core * session.lnc;
    return {physical / per_device, physical % per_device, 0};
}

// The bytes of a tensor list, with a reason when a tensor has none.
std::optional<std::size_t> list_bytes(const nrt_tensor_list_t* list, std::string& why) {
    if (list == nullptr || (list->tensors == nullptr && list->num_tensors > 0)) {
        why = "a tensor list is NULL";
        return std::nullopt;
    }
    std::size_t total = 0;
    for (std::size_t i = 0; i < list->num_tensors; ++i) {
        const auto* t = list->tensors[i];
        if (t == nullptr || t->data() == nullptr) {
            why = "tensor " + std::to_string(i) + " of a list has no buffer";
            return std::nullopt;
        }
        total += t->size;
    }
    return total;
}

std::string concatenated(const std::vector<nrt_tensor*>& tensors) {
    std::string out;
    for (const auto* t : tensors) out.append(reinterpret_cast<const char*>(t->data()), t->size);
    return out;
}

void scatter(const std::uint8_t* bytes, const std::vector<nrt_tensor*>& tensors) {
    for (auto* t : tensors) {
        std::memcpy(t->data(), bytes, t->size);
        bytes += t->size;
    }
}

NRT_STATUS run_prepared(const nrt_cc_context& c) {
    const char* fn = "nrta_cc_schedule";
    std::string gathered;
    const auto input = concatenated(c.inputs);
    if (const auto s = run_collective(fn, {c.group, protocol::collective_kind::all_gather, c.rank, c.ranks, c.vnc, input},
                                      gathered);
        s != NRT_SUCCESS) {
        return s;
    }
    if (c.cc_op == NRT_CC_ALLGATHER) {
        scatter(reinterpret_cast<const std::uint8_t*>(gathered.data()), c.outputs);
        return NRT_SUCCESS;
    }
    std::vector<std::uint8_t> reduced(input.size());
    reduce_blocks(c.dtype, c.op, gathered, c.ranks, input.size(), reduced.data());
    const auto part = c.cc_op == NRT_CC_REDUCESCATTER ? input.size() / c.ranks : 0;
    scatter(reduced.data() + part * c.rank, c.outputs);
    return NRT_SUCCESS;
}

} // namespace

std::string global_group(std::uint32_t count) { return "global/" + std::to_string(count); }

NRT_STATUS run_collective(const char* fn, const collective_call& call, std::string& gathered) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto global = runtime::get().global_core(static_cast<int>(call.vnc));
    if (!global) return invalid(fn, "NeuronCore " + std::to_string(call.vnc) + " is not one of this process's");
    const protocol::join_collective request{call.group, call.kind, call.rank, call.ranks, *global,
                                            exec_timeout_ns(fn), call.contribution};
    try {
        const auto r = runtime::get().client()->request(message_type::join_collective, request,
                                                        message_type::collective_joined);
        gathered = control_client::decode<protocol::collective_joined>(r, "collective_joined").gathered;
        return NRT_SUCCESS;
    } catch (const request_failed& e) {
        if (e.status() != NRT_EXEC_HW_ERR_COLLECTIVES) throw;
        log_hardware_error(fn, e.status(), place_of(*global));
        return NRT_EXEC_HW_ERR_COLLECTIVES;
    }
}

NRT_STATUS prepare_collective(const char* fn, nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output,
                              long long dtype, long long op, long long cc_op, nrt_cc_context_t** cc_ctx) {
    if (comm == nullptr || cc_ctx == nullptr) return invalid(fn, "comm and cc_ctx must not be NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (comm->rank_n == 0 || comm->rank >= comm->rank_n || comm->replica_group == nullptr) {
            return invalid(fn, "rank " + std::to_string(comm->rank) + " is not one of a replica group of " +
                                   std::to_string(comm->rank_n));
        }
        if (!runtime::get().global_core(static_cast<int>(comm->vnc))) {
            return invalid(fn, "NeuronCore " + std::to_string(comm->vnc) + " is not one of this process's");
        }
        if (cc_op < NRT_CC_ALLGATHER || cc_op > NRT_CC_REDUCESCATTER) return invalid(fn, "unknown collective " + std::to_string(cc_op));
        std::string why;
        const auto in = list_bytes(input, why);
        const auto out = in ? list_bytes(output, why) : std::nullopt;
        if (!in || !out) return invalid(fn, why);
        const auto ranks = std::size_t{comm->rank_n};
        const auto wanted = cc_op == NRT_CC_ALLGATHER ? *in * ranks : cc_op == NRT_CC_ALLREDUCE ? *in : *in / ranks;
        if (*out != wanted || (cc_op == NRT_CC_REDUCESCATTER && *in % ranks != 0)) {
            return invalid(fn, std::to_string(*in) + " input bytes among " + std::to_string(ranks) + " ranks need " +
                                   std::to_string(wanted) + " output bytes, not " + std::to_string(*out));
        }
        if (cc_op != NRT_CC_ALLGATHER) {
            const auto element = reducible_size(dtype);
            if (!element) return invalid(fn, "dtype " + std::to_string(dtype) + " is not reduced by the emulator");
            if (!reducible_op(op)) return invalid(fn, "reduction " + std::to_string(op) + " is not ADD, MAX or MIN");
            if (*out % *element != 0) return invalid(fn, "the outputs are not whole elements");
        }
        auto c = std::make_unique<nrt_cc_context>();
        c->group = "replica-group";
        for (std::uint32_t i = 0; i < comm->rank_n; ++i) c->group += ":" + std::to_string(comm->replica_group[i]);
        c->rank = comm->rank;
        c->ranks = comm->rank_n;
        c->vnc = comm->vnc;
        c->inputs.assign(input->tensors, input->tensors + input->num_tensors);
        c->outputs.assign(output->tensors, output->tensors + output->num_tensors);
        c->dtype = dtype;
        c->op = op;
        c->cc_op = cc_op;
        *cc_ctx = c.release();
        return NRT_SUCCESS;
    });
}

work_or_status collective_work(const char* fn, nrt_cc_context_t** cc_ctx, int queue) {
    if (cc_ctx == nullptr || *cc_ctx == nullptr) return invalid(fn, "cc_ctx is NULL: nrta_cc_prepare makes one");
    auto* c = *cc_ctx;
    // Freed once it ran; if scheduling fails the caller still owns it.
    return async_work{{c->vnc, xu_kind::collectives, queue}, now([c] {
                          const std::unique_ptr<nrt_cc_context> owned(c);
                          return run_prepared(*c);
                      })};
}

} // namespace neuron::shim
