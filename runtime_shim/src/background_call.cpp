#include "background_call.h"

#include "api.h"

#include <cstring>
#include <thread>

namespace neuron::shim {

std::shared_ptr<background_call> background_call::start(collective_call call, std::uint8_t* destination,
                                                        std::size_t room) {
    auto self = std::make_shared<background_call>();
    std::thread([self, call = std::move(call), destination, room] {
        std::string gathered;
        const auto status =
            guarded("nrt_async_sendrecv", [&] { return run_collective("nrt_async_sendrecv", call, gathered); });
        if (status == NRT_SUCCESS) {
            self->m_moved = destination != nullptr ? std::min(room, gathered.size()) : call.contribution.size();
            if (destination != nullptr && self->m_moved > 0) std::memcpy(destination, gathered.data(), self->m_moved);
        }
        self->m_status = status;
        self->m_finished.store(true, std::memory_order_release);
    }).detach();
    return self;
}

} // namespace neuron::shim
