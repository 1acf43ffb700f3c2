#pragma once

// Collectives through the emulator (nrt_barrier, nrt_all_gather, nrta_cc_*):
// the ranks of a group meet in the emulator, which moves their contributions
// over the instance's NeuronLink model in simulated time. All-reduce and
// reduce-scatter gather every contribution and reduce it here.

#include "async_requests.h"

#include "neuron/protocol/messages.h"

#include <string>

struct nrt_cc_context;

namespace neuron::shim {

// A barrier or an all-gather (a transfer is run_transfer's).
struct collective_call {
    std::string group;
    protocol::collective_kind kind = protocol::collective_kind::barrier;
    std::uint32_t rank = 0;
    std::uint32_t ranks = 1;
    std::uint32_t vnc = 0; // this process's logical core the rank runs on
    std::string contribution;
};

// Blocks until every rank arrived and the data moved; the gathered bytes in
// rank order. A group that never completes returns the collectives-hang
// status with the runtime's log line.
NRT_STATUS run_collective(const char* fn, const collective_call& call, std::string& gathered);

// One meeting in the emulator: the gathered bytes, or the collectives-hang
// status with the runtime's line (other refusals throw request_failed).
NRT_STATUS join_once(const char* fn, const protocol::join_collective& request, std::string& gathered);

// A group's name as it travels: one too long for the protocol (a long job
// name, a large replica group) is shortened to a hash of it, the same on
// every rank.
std::string bounded(const std::string& group);

// The global communicator's name for `count` workers.
std::string global_group(std::uint32_t count);

// NRT_SUCCESS, or NRT_INVALID with the reason when a collective among
// `workers` (more than one) has no job: NEURON_RT_ROOT_COMM_ID is not set.
NRT_STATUS require_job(const char* fn, std::uint32_t workers);

NRT_STATUS prepare_collective(const char* fn, nrt_cc_comm_t* comm, nrt_tensor_list_t* input, nrt_tensor_list_t* output,
                              long long dtype, long long op, long long cc_op, nrt_cc_context_t** cc_ctx);
// Takes the context: the runtime frees it once the collective ran.
work_or_status collective_work(const char* fn, nrt_cc_context_t** cc_ctx, int queue);

} // namespace neuron::shim
