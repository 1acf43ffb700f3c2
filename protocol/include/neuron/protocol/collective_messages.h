#pragma once

// The runtime requests of collectives among processes (protocol/README.md documents them); messages.h includes this.

#include "neuron/protocol/message_codec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace neuron::protocol {

// A rank of a collective (barrier, all-gather, or one side of a send): its
// reply comes once every rank of the group arrived and the data moved, in
// simulated time, or as an error (NRT_EXEC_HW_ERR_COLLECTIVES when the
// others did not come within the timeout).
enum class collective_kind : std::uint8_t { barrier = 0, all_gather = 1, send_receive = 2 };
constexpr enum_range<collective_kind> wire_range(collective_kind) {
    return {"collective kind", collective_kind::barrier, collective_kind::send_receive};
}

// What one collective message carries, in its contribution and in the
// gathered reply: it fits a datagram under the kernel's default socket
// buffer (wmem_default, 208 KiB), as a model file does. The shim sends
// larger data in pieces of this size.
inline constexpr std::size_t max_collective_bytes = 128 * 1024;
inline constexpr std::size_t max_collective_group = 256;

// A send/receive is one piece of a transfer between two logical cores: the
// sender (rank 0) and the receiver (rank 1) each name the other's core, and
// the server pairs them by those cores (each side's own core is its
// session's), not by the group, which only tells a pair's transfers apart.
// Both declare the transfer's length; a piece starts at `offset` of it.
struct join_collective {
    std::string group; // the communicator: the same on every rank
    collective_kind kind = collective_kind::barrier;
    std::uint32_t rank = 0;
    std::uint32_t ranks = 1;
    std::uint32_t logical_core = 0;   // global, owned by the session
    std::uint32_t peer_core = 0;      // send/receive: the other side's global logical core
    std::uint64_t timeout_ns = 0;     // NEURON_RT_EXEC_TIMEOUT; 0: the runtime's default
    std::uint64_t transfer_bytes = 0; // send/receive: the whole transfer's length, as this side declares it
    std::uint64_t offset = 0;         // send/receive: where this piece starts in it
    std::string contribution;         // all-gather: the same size on every rank; a receive: none
    static constexpr const char* wire_name = "join_collective";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("group", m.group);
        v("kind", m.kind);
        v("rank", m.rank);
        v("ranks", m.ranks);
        v("logical_core", m.logical_core);
        v("peer_core", m.peer_core);
        v("timeout_ns", m.timeout_ns);
        v("transfer_bytes", m.transfer_bytes);
        v("offset", m.offset);
        v("contribution", m.contribution);
    }
    // The gathered reply holds every rank's contribution (a send's: the sender's).
    std::uint64_t gathered_bytes() const {
        return kind == collective_kind::send_receive ? contribution.size() : std::uint64_t{ranks} * contribution.size();
    }
    void validate() const {
        if (group.empty() || group.size() > max_collective_group) {
            throw protocol_error("join_collective: a group is named by 1 to " + std::to_string(max_collective_group) +
                                 " bytes");
        }
        if (ranks == 0 || rank >= ranks) throw protocol_error("join_collective: rank is not one of ranks");
        if (gathered_bytes() > max_collective_bytes) {
            throw protocol_error("join_collective: gathers more than " + std::to_string(max_collective_bytes) +
                                 " bytes");
        }
        if (kind != collective_kind::send_receive) {
            if (peer_core != 0 || transfer_bytes != 0 || offset != 0) {
                throw protocol_error("join_collective: only a send/receive has a peer core, a length and an offset");
            }
            return;
        }
        if (ranks != 2) throw protocol_error("join_collective: a send/receive has 2 ranks");
        if (offset > transfer_bytes || contribution.size() > transfer_bytes - offset) {
            throw protocol_error("join_collective: a piece ends past its transfer's length");
        }
    }
};

struct collective_joined {
    std::string gathered; // every rank's contribution in rank order (a send: the bytes sent)
    static constexpr const char* wire_name = "collective_joined";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("gathered", m.gathered);
    }
};

} // namespace neuron::protocol
