#pragma once

// One side of a point-to-point transfer through the emulator
// (nrt_async_sendrecv_*): the sender's bytes go to the receiver in pieces
// of at most protocol::max_collective_bytes. The emulator pairs the sides by
// their logical cores, each naming the other's; both declare the
// transfer's length, and sides that disagree both fail.

#include "nrt/nrt.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace neuron::shim {

struct transfer_call {
    std::string group;          // tells apart the transfers of one pair of cores
    bool sending = true;        // rank 0 sends, rank 1 receives
    std::uint32_t vnc = 0;      // this process's logical core
    std::uint32_t peer_lnc = 0; // the other side's logical core, as the host numbers it
    std::string bytes;          // a send: what it sends
    // A receive: where its bytes land, and exactly how many it expects. Each
    // piece is written there as it arrives; nothing beyond `room` is kept.
    std::uint8_t* destination = nullptr;
    std::size_t room = 0;
};

// Blocks until the transfer ended: its status (the collectives-hang status
// with the runtime's line when the peer did not come in time) and the bytes
// sent or received so far in `moved`.
NRT_STATUS run_transfer(const char* fn, const transfer_call& call, std::size_t& moved);

} // namespace neuron::shim
