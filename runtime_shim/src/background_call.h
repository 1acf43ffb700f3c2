#pragma once

// A transfer run on a thread of its own, for the calls that only start one
// and let the caller poll (send/receive). A receive's bytes land in the
// call's destination before it reports finished; the tensors it `holds`
// (a receive's) stay in use until then, so freeing, reading or writing them
// waits for it.

#include "tensor_use.h"
#include "transfer_requests.h"

#include <atomic>
#include <memory>

namespace neuron::shim {

class background_call {
public:
    static std::shared_ptr<background_call> start(transfer_call call, tensors_in_use holds = {});

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
