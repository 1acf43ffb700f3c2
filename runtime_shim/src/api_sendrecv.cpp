// Point-to-point tensor transfers between logical NeuronCores of the host
// (nrt-api-surface.md §8). A connect on core A to B and an accept on B from A
// meet in the emulator (the n-th of each pair together); each send then
// meets the receive posted in the same order on its communicator, and the
// bytes travel the instance's NeuronLink model. The emulator pairs them by
// the cores, each side's own and the one it names, never by a name alone:
// only the process that owns core A can be the sender to B's receive.
// Connections and transfers run in the background; test_comm and
// test_request poll them.

#include "nrt/nrt_async_sendrecv.h"

#include "api.h"
#include "background_call.h"
#include "objects.h"
#include "runtime.h"
#include "sendrecv.h"
#include "tensor_checks.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>

using namespace neuron::shim;

// Ours: the reference names the limits but gives no values.
constexpr int max_communicators_per_lnc = 16;
constexpr int max_pending_requests = 64;

struct nrt_async_sendrecv_comm {
    bool sending = true;
    int lnc = 0; // the host's logical core
    int peer_lnc = 0;
    std::string group; // where its transfers meet
    std::shared_ptr<background_call> connecting;
    bool connected = false;
    int pending = 0;
    std::uint64_t posted = 0; // transfers posted: the n-th meets the peer's n-th
};

struct nrt_async_sendrecv_request {
    nrt_async_sendrecv_comm* comm = nullptr;
    std::shared_ptr<background_call> transfer;
};

namespace {

struct lnc_state {
    std::set<nrt_async_sendrecv_comm*> comms;
};

std::mutex sendrecv_mutex;
std::map<int, lnc_state> initialized; // host lnc -> its communicators
std::set<nrt_async_sendrecv_comm*> live_comms;
std::set<nrt_async_sendrecv_request*> live_requests;
// Per direction and pair of cores: communicators opened so far, for the
// life of the process, so the n-th connect meets the peer's n-th accept.
std::map<std::string, int> opened;

// The process's index of a host logical core, or nothing.
std::optional<std::uint32_t> local_core(int lnc) {
    const auto s = runtime::get().session();
    if (lnc < 0 || static_cast<std::uint32_t>(lnc) < s.first || static_cast<std::uint32_t>(lnc) >= s.first + s.count) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(lnc) - s.first;
}

NRT_STATUS status_of(const char* fn, const background_call& call) {
    const auto status = call.status();
    if (status == NRT_EXEC_HW_ERR_COLLECTIVES) {
        log_error(fn, "the peer did not answer within the timeout");
        return NRT_TIMEOUT;
    }
    return status == NRT_SUCCESS ? NRT_SUCCESS : NRT_FAILURE;
}

NRT_STATUS open_comm(const char* fn, const char* peer_ip, int peer_lnc, int lnc, bool sending,
                     nrt_async_sendrecv_comm_t** out) {
    if (peer_ip == nullptr || out == nullptr) {
        log_error(fn, "peer_ip and the communicator must not be NULL");
        return NRT_FAILURE;
    }
    if (peer_lnc < 0) {
        log_error(fn, "peer NeuronCore " + std::to_string(peer_lnc) + " does not exist");
        return NRT_FAILURE;
    }
    return guarded(fn, [&]() -> NRT_STATUS {
        if (runtime::get().check(fn) != NRT_SUCCESS) return NRT_FAILURE;
        const auto vnc = local_core(lnc);
        std::lock_guard lock(sendrecv_mutex);
        const auto it = initialized.find(lnc);
        if (!vnc || it == initialized.end()) {
            log_error(fn, "nrt_async_sendrecv_init(" + std::to_string(lnc) + ") was not called by this process");
            return NRT_FAILURE;
        }
        if (static_cast<int>(it->second.comms.size()) >= max_communicators_per_lnc) {
            log_error(fn, "NeuronCore " + std::to_string(lnc) + " has " + std::to_string(max_communicators_per_lnc) +
                              " communicators already");
            return NRT_RESOURCE;
        }
        const auto from = sending ? lnc : peer_lnc;
        const auto to = sending ? peer_lnc : lnc;
        const auto pair = std::to_string(from) + ">" + std::to_string(to);
        const auto nth = opened[(sending ? "send " : "recv ") + pair]++;
        auto comm = std::make_unique<nrt_async_sendrecv_comm>();
        comm->sending = sending;
        comm->lnc = lnc;
        comm->peer_lnc = peer_lnc;
        comm->group = "sendrecv:" + pair + "#" + std::to_string(nth);
        comm->connecting = background_call::start(
            {comm->group + "/connect", sending, *vnc, static_cast<std::uint32_t>(peer_lnc), {}, nullptr, 0});
        it->second.comms.insert(comm.get());
        live_comms.insert(comm.get());
        *out = comm.release();
        return NRT_SUCCESS;
    });
}

NRT_STATUS post(const char* fn, nrt_tensor_t* tensor, size_t offset, size_t length, nrt_async_sendrecv_comm_t* comm,
                bool sending, nrt_async_sendrecv_request_t** request) {
    if (comm == nullptr || request == nullptr) {
        log_error(fn, "the communicator and the request must not be NULL");
        return NRT_INVALID_HANDLE;
    }
    return guarded(fn, [&]() -> NRT_STATUS {
        if (check_tensor_io(fn, tensor, tensor, offset, length) != NRT_SUCCESS) return NRT_FAILURE;
        std::lock_guard lock(sendrecv_mutex);
        if (!live_comms.contains(comm)) {
            log_error(fn, "not a communicator of this process");
            return NRT_INVALID_HANDLE;
        }
        if (comm->sending != sending) {
            log_error(fn, sending ? "a receive communicator cannot send" : "a send communicator cannot receive");
            return NRT_FAILURE;
        }
        if (!comm->connected) {
            log_error(fn, "the communicator is not connected yet: nrt_async_sendrecv_test_comm reports when it is");
            return NRT_FAILURE;
        }
        if (comm->pending >= max_pending_requests) {
            log_error(fn,
                      std::to_string(max_pending_requests) + " requests are already in flight on this communicator");
            return NRT_RESOURCE;
        }
        const auto vnc = local_core(comm->lnc);
        if (!vnc) {
            log_error(fn, "NeuronCore " + std::to_string(comm->lnc) + " is no longer this process's");
            return NRT_FAILURE;
        }
        std::string bytes;
        if (sending) bytes.assign(reinterpret_cast<const char*>(tensor->data() + offset), length);
        auto r = std::make_unique<nrt_async_sendrecv_request>();
        r->comm = comm;
        auto* destination = sending ? nullptr : tensor->data() + offset;
        // A receive writes into the tensor until it ends: freeing, reading or
        // writing the tensor waits until then, as for a pending execution
        // (nrt-api-surface.md §5.2: tensor calls block while a pending
        // request uses the tensor), so the peer's bytes never land in freed
        // memory.
        tensors_in_use holds;
        if (!sending) holds = tensors_in_use({tensor->storage.get()});
        r->transfer = background_call::start({comm->group + "/" + std::to_string(comm->posted++), sending, *vnc,
                                              static_cast<std::uint32_t>(comm->peer_lnc), std::move(bytes), destination,
                                              sending ? 0 : length},
                                             std::move(holds));
        ++comm->pending;
        live_requests.insert(r.get());
        *request = r.release();
        return NRT_SUCCESS;
    });
}

} // namespace

void neuron::shim::forget_sendrecv() {
    std::lock_guard lock(sendrecv_mutex);
    for (auto* comm : live_comms) delete comm;
    live_comms.clear();
    initialized.clear();
    for (auto* request : live_requests) delete request;
    live_requests.clear();
}

NRT_API NRT_STATUS nrt_async_sendrecv_get_max_num_communicators_per_lnc(int* num) {
    if (num == nullptr) return invalid("nrt_async_sendrecv_get_max_num_communicators_per_lnc", "num is NULL");
    *num = max_communicators_per_lnc;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_async_sendrecv_get_max_num_pending_request(int* num) {
    if (num == nullptr) return invalid("nrt_async_sendrecv_get_max_num_pending_request", "num is NULL");
    *num = max_pending_requests;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_async_sendrecv_init(int lnc) {
    const char* fn = "nrt_async_sendrecv_init";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (runtime::get().check(fn) != NRT_SUCCESS) return NRT_FAILURE;
        if (!local_core(lnc)) {
            log_error(fn, "NeuronCore " + std::to_string(lnc) + " of the host is not one of this process's");
            return NRT_FAILURE;
        }
        std::lock_guard lock(sendrecv_mutex);
        if (!initialized.emplace(lnc, lnc_state{}).second) {
            log_error(fn, "send/receive is already enabled on NeuronCore " + std::to_string(lnc));
            return NRT_FAILURE;
        }
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_async_sendrecv_close(int lnc) {
    const char* fn = "nrt_async_sendrecv_close";
    return guarded(fn, [&]() -> NRT_STATUS {
        std::lock_guard lock(sendrecv_mutex);
        const auto it = initialized.find(lnc);
        if (it == initialized.end()) {
            log_error(fn, "send/receive was not enabled on NeuronCore " + std::to_string(lnc));
            return NRT_FAILURE;
        }
        for (auto* comm : it->second.comms) {
            if (!comm->connected || comm->pending > 0) {
                log_error(fn, "a communicator of NeuronCore " + std::to_string(lnc) +
                                  (comm->connected ? " has a transfer in flight" : " is not connected"));
                return NRT_FAILURE;
            }
        }
        for (auto* comm : it->second.comms) {
            live_comms.erase(comm);
            delete comm;
        }
        initialized.erase(it);
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_async_sendrecv_connect(const char* peer_ip, int peer_lnc, int lnc,
                                              nrt_async_sendrecv_comm_t** send_comm) {
    return open_comm("nrt_async_sendrecv_connect", peer_ip, peer_lnc, lnc, true, send_comm);
}

NRT_API NRT_STATUS nrt_async_sendrecv_accept(const char* peer_ip, int peer_lnc, int lnc,
                                             nrt_async_sendrecv_comm_t** recv_comm) {
    return open_comm("nrt_async_sendrecv_accept", peer_ip, peer_lnc, lnc, false, recv_comm);
}

NRT_API NRT_STATUS nrt_async_sendrecv_test_comm(nrt_async_sendrecv_comm_t* comm, bool* done) {
    const char* fn = "nrt_async_sendrecv_test_comm";
    if (comm == nullptr || done == nullptr) {
        log_error(fn, "the communicator and done must not be NULL");
        return NRT_INVALID_HANDLE;
    }
    std::lock_guard lock(sendrecv_mutex);
    if (!live_comms.contains(comm)) {
        log_error(fn, "not a communicator of this process");
        return NRT_INVALID_HANDLE;
    }
    *done = comm->connected;
    if (comm->connected || !comm->connecting->finished()) return NRT_SUCCESS;
    const auto status = status_of(fn, *comm->connecting);
    comm->connected = status == NRT_SUCCESS;
    *done = comm->connected;
    return status;
}

NRT_API NRT_STATUS nrt_async_sendrecv_send_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                                  nrt_async_sendrecv_comm_t* send_comm,
                                                  nrt_async_sendrecv_request_t** request) {
    return post("nrt_async_sendrecv_send_tensor", tensor, offset, length, send_comm, true, request);
}

NRT_API NRT_STATUS nrt_async_sendrecv_recv_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                                  nrt_async_sendrecv_comm_t* recv_comm,
                                                  nrt_async_sendrecv_request_t** request) {
    return post("nrt_async_sendrecv_recv_tensor", tensor, offset, length, recv_comm, false, request);
}

NRT_API NRT_STATUS nrt_async_sendrecv_test_request(nrt_async_sendrecv_request_t* request, bool* done, size_t* size) {
    const char* fn = "nrt_async_sendrecv_test_request";
    if (request == nullptr || done == nullptr || size == nullptr) {
        log_error(fn, "the request, done and size must not be NULL");
        return NRT_INVALID_HANDLE;
    }
    std::lock_guard lock(sendrecv_mutex);
    if (!live_requests.contains(request)) {
        log_error(fn, "not a request in flight (a completed request must not be tested again)");
        return NRT_INVALID_HANDLE;
    }
    *done = request->transfer->finished();
    *size = 0;
    if (!*done) return NRT_SUCCESS;
    const auto status = status_of(fn, *request->transfer);
    *size = request->transfer->moved();
    --request->comm->pending;
    live_requests.erase(request);
    delete request; // the runtime frees a request once it reported it complete
    return status;
}

NRT_API NRT_STATUS nrt_async_sendrecv_flush(int lnc) {
    std::lock_guard lock(sendrecv_mutex);
    if (!initialized.contains(lnc)) {
        log_error("nrt_async_sendrecv_flush", "send/receive was not enabled on NeuronCore " + std::to_string(lnc));
        return NRT_FAILURE;
    }
    return NRT_SUCCESS; // a receive tested complete has already written its bytes
}
