#include "collective_requests.h"

#include "api.h"
#include "collective_reduce.h"
#include "execution.h"
#include "hardware_error_log.h"
#include "objects.h"
#include "runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
        if (__builtin_add_overflow(total, t->size, &total)) {
            why = "a tensor list holds more bytes than a size_t counts";
            return std::nullopt;
        }
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
    if (const auto s = run_collective(
            fn, {c.group, protocol::collective_kind::all_gather, c.rank, c.ranks, c.vnc, input}, gathered);
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

namespace {

// Collectives of one job meet in groups that name it: the rank-0 address
// every worker of a job is given (NEURON_RT_ROOT_COMM_ID), so that two jobs
// on one instance never join each other's.
std::string job_name() {
    const char* root = std::getenv("NEURON_RT_ROOT_COMM_ID");
    return root != nullptr ? root : "";
}

} // namespace

std::string bounded(const std::string& group) {
    if (group.size() <= protocol::max_collective_group) return group;
    std::uint64_t hash = 0xcbf29ce484222325ull; // FNV-1a
    for (const unsigned char c : group) hash = (hash ^ c) * 0x100000001b3ull;
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(hash));
    return group.substr(0, protocol::max_collective_group - 17) + "#" + text;
}

std::string global_group(std::uint32_t count) { return job_name() + "/global/" + std::to_string(count); }

// The runtime's workers find rank 0 at NEURON_RT_ROOT_COMM_ID, "mandatory for
// collective workloads" (nrt-api-surface.md §4.2): without it there is no
// job to meet in, and unrelated processes must not meet by arrival order.
NRT_STATUS require_job(const char* fn, std::uint32_t workers) {
    if (workers <= 1 || !job_name().empty()) return NRT_SUCCESS;
    return invalid(fn, "NEURON_RT_ROOT_COMM_ID is not set: a collective among " + std::to_string(workers) +
                           " workers needs it (rank 0's ip:port, which names the job)");
}

NRT_STATUS join_once(const char* fn, const protocol::join_collective& request, std::string& gathered) {
    try {
        const auto r =
            runtime::get().client()->request(message_type::join_collective, request, message_type::collective_joined);
        gathered = control_client::decode<protocol::collective_joined>(r, "collective_joined").gathered;
        return NRT_SUCCESS;
    } catch (const request_failed& e) {
        if (e.status() != NRT_EXEC_HW_ERR_COLLECTIVES) throw;
        log_hardware_error(fn, e.status(), place_of(request.logical_core));
        return NRT_EXEC_HW_ERR_COLLECTIVES;
    }
}

namespace {

NRT_STATUS gather_in_pieces(const char* fn, protocol::join_collective request, const std::string& mine,
                            std::string& gathered) {
    const std::size_t ranks = request.ranks;
    const auto piece = std::max<std::size_t>(1, protocol::max_collective_bytes / ranks);
    gathered.assign(mine.size() * ranks, '\0');
    std::size_t offset = 0;
    do { // at least once: the ranks meet even with nothing to gather
        const auto length = std::min(piece, mine.size() - offset);
        request.contribution = mine.substr(offset, length);
        std::string part;
        if (const auto s = join_once(fn, request, part); s != NRT_SUCCESS) return s;
        if (part.size() != length * ranks)
            return invalid(fn, "the emulator gathered " + std::to_string(part.size()) + " bytes");
        for (std::size_t r = 0; r < ranks; ++r)
            part.copy(gathered.data() + r * mine.size() + offset, length, r * length);
        offset += length;
    } while (offset < mine.size());
    return NRT_SUCCESS;
}

} // namespace

NRT_STATUS run_collective(const char* fn, const collective_call& call, std::string& gathered) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto global = runtime::get().global_core(static_cast<int>(call.vnc));
    if (!global) return invalid(fn, "NeuronCore " + std::to_string(call.vnc) + " is not one of this process's");
    if (call.ranks == 0 || call.rank >= call.ranks || call.ranks > protocol::max_collective_bytes) {
        return invalid(fn, "rank " + std::to_string(call.rank) + " is not one of " + std::to_string(call.ranks));
    }
    if (const auto s = require_job(fn, call.ranks); s != NRT_SUCCESS) return s;
    protocol::join_collective request;
    request.group = bounded(call.group);
    request.kind = call.kind;
    request.rank = call.rank;
    request.ranks = call.ranks;
    request.logical_core = *global;
    request.timeout_ns = exec_timeout_ns(fn);
    switch (call.kind) {
    case protocol::collective_kind::barrier: return join_once(fn, request, gathered);
    case protocol::collective_kind::all_gather: return gather_in_pieces(fn, request, call.contribution, gathered);
    case protocol::collective_kind::send_receive: break; // run_transfer's
    }
    return invalid(fn, "not a barrier or an all-gather");
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
        if (const auto s = require_job(fn, comm->rank_n); s != NRT_SUCCESS) return s;
        if (cc_op < NRT_CC_ALLGATHER || cc_op > NRT_CC_REDUCESCATTER)
            return invalid(fn, "unknown collective " + std::to_string(cc_op));
        std::string why;
        const auto in = list_bytes(input, why);
        const auto out = in ? list_bytes(output, why) : std::nullopt;
        if (!in || !out) return invalid(fn, why);
        const auto ranks = std::size_t{comm->rank_n};
        std::size_t gathered = 0;
        if (__builtin_mul_overflow(*in, ranks, &gathered)) return invalid(fn, "the gathered bytes overflow a size_t");
        const auto wanted = cc_op == NRT_CC_ALLGATHER ? gathered : cc_op == NRT_CC_ALLREDUCE ? *in : *in / ranks;
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
        c->group = job_name() + "/replica-group";
        for (std::uint32_t i = 0; i < comm->rank_n; ++i) {
            c->group += ':'; // not `":" + std::string`, which g++ 12 misreads at -O3 (-Wrestrict)
            c->group += std::to_string(comm->replica_group[i]);
        }
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
