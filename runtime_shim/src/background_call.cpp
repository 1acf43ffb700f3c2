#include "background_call.h"

#include "api.h"

#include <thread>

namespace neuron::shim {

std::shared_ptr<background_call> background_call::start(transfer_call call, tensors_in_use holds) {
    auto self = std::make_shared<background_call>();
    std::thread([self, call = std::move(call), holds = std::move(holds)]() mutable {
        std::size_t moved = 0;
        const auto status =
            guarded("nrt_async_sendrecv", [&] { return run_transfer("nrt_async_sendrecv", call, moved); });
        self->m_moved = moved;
        self->m_status = status;
        self->m_finished.store(true, std::memory_order_release);
        // Only now may the tensor be freed: a free that returns has a finished call to test.
        holds = tensors_in_use{};
    }).detach();
    return self;
}

} // namespace neuron::shim
