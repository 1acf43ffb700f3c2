#pragma once

// A collective run on a thread of its own, for the calls that only start one
// and let the caller poll (send/receive). A receive's bytes land in
// `destination` (at most `room` of them) before it reports finished.

#include "collective_requests.h"

#include <atomic>
#include <memory>

namespace neuron::shim {

class background_call {
public:
    static std::shared_ptr<background_call> start(collective_call call, std::uint8_t* destination = nullptr,
                                                  std::size_t room = 0);

    bool finished() const { return m_finished.load(std::memory_order_acquire); }
    // Once finished: its status and the bytes sent or received.
    NRT_STATUS status() const { return m_status; }
    std::size_t moved() const { return m_moved; }

private:
    NRT_STATUS m_status = NRT_FAILURE;
    std::size_t m_moved = 0;
    std::atomic<bool> m_finished{false};
};

} // namespace neuron::shim
