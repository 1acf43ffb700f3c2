#include "transfer_requests.h"

#include "api.h"
#include "collective_requests.h"
#include "execution.h"
#include "runtime.h"

#include <algorithm>
#include <cstring>

namespace neuron::shim {

NRT_STATUS run_transfer(const char* fn, const transfer_call& call, std::size_t& moved) {
    moved = 0;
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto global = runtime::get().global_core(static_cast<int>(call.vnc));
    if (!global) return invalid(fn, "NeuronCore " + std::to_string(call.vnc) + " is not one of this process's");
    protocol::join_collective request;
    request.group = bounded(call.group);
    request.kind = protocol::collective_kind::send_receive;
    request.rank = call.sending ? 0 : 1;
    request.ranks = 2;
    request.logical_core = *global;
    request.peer_core = call.peer_lnc;
    request.timeout_ns = exec_timeout_ns(fn);
    const std::size_t total = call.sending ? call.bytes.size() : call.room;
    request.transfer_bytes = total;
    const auto piece = protocol::max_collective_bytes;
    // At least one piece: the sides meet even with nothing to move.
    for (std::size_t offset = 0;; offset += piece) {
        const auto length = std::min(piece, total - offset);
        request.offset = offset;
        if (call.sending) request.contribution = call.bytes.substr(offset, length);
        std::string part;
        if (const auto s = join_once(fn, request, part); s != NRT_SUCCESS) return s;
        if (!call.sending) {
            // The emulator gives a receive the piece it asked for, never more.
            if (part.size() != length) {
                return invalid(fn, "the emulator delivered " + std::to_string(part.size()) + " bytes for a piece of " +
                                       std::to_string(length));
            }
            if (length > 0) std::memcpy(call.destination + offset, part.data(), length);
        }
        moved = offset + length;
        if (total - offset <= piece) return NRT_SUCCESS;
    }
}

} // namespace neuron::shim
