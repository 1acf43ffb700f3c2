#include "implicit_async.h"

#include "api.h"
#include "async_requests.h"
#include "execution.h"
#include "execution_units.h"
#include "objects.h"
#include "rate_limited_log.h"
#include "runtime.h"
#include "sys_trace.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace neuron::shim {
namespace {

constexpr std::uint32_t hard_limit = 63; // since Neuron 2.23

struct callback_slot {
    NRT_ASYNC_EXEC_STATUS_CALLBACK function = nullptr;
    void* params = nullptr;
};

// Never destroyed: a unit's thread may still report at exit.
struct mode_state {
    std::mutex mutex;
    callback_slot registered;
    std::map<std::uint32_t, std::uint32_t> in_flight; // per logical core
    std::uint64_t next_job = 1;
};

mode_state& state() {
    static auto* s = new mode_state;
    return *s;
}

// The runtime's own callback when the application registered none.
void default_callback(void*, uint32_t model_id, uint32_t vnc, uint64_t job_id, NRT_STATUS status) {
    if (status == NRT_SUCCESS) return;
    log_error("nrt_execute", "execution " + std::to_string(job_id) + " of model " + std::to_string(model_id) +
                                 " on NeuronCore " + std::to_string(vnc) + " ended with status " +
                                 std::to_string(static_cast<int>(status)));
}

void leave_flight(std::uint32_t vnc) {
    auto& s = state();
    std::lock_guard lock(s.mutex);
    --s.in_flight[vnc];
}

} // namespace

std::optional<std::uint32_t> implicit_async_limit(const char* fn) {
    const char* text = std::getenv("NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS");
    if (text == nullptr || *text == '\0') return std::nullopt;
    std::uint32_t n = 0;
    const auto end = text + std::strlen(text);
    const auto [rest, error] = std::from_chars(text, end, n);
    if (error != std::errc{} || rest != end) {
        log_error(fn, "NEURON_RT_ASYNC_EXEC_MAX_INFLIGHT_REQUESTS is not a whole number: the mode stays off");
        return std::nullopt;
    }
    if (n == 0) return std::nullopt;
    return std::min(n, hard_limit);
}

NRT_STATUS execute_in_background(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input,
                                 nrt_tensor_set_t* output, std::uint32_t limit) {
    const sys_trace::api_event trace(sys_trace::execute_event(fn), model); // the call: until queued
    if (const auto status = check_execution(fn, model, input, output); status != NRT_SUCCESS) return status;
    const auto vnc = static_cast<std::uint32_t>(model->vnc);
    std::uint64_t job = 0;
    {
        auto& s = state();
        std::lock_guard lock(s.mutex);
        if (s.in_flight[vnc] >= limit) {
            static rate_limited_line full; // a caller retries in a loop: a line a second
            full.log_error(fn, std::to_string(limit) + " executions are already in flight on NeuronCore " +
                                   std::to_string(vnc));
            return NRT_QUEUE_FULL;
        }
        ++s.in_flight[vnc];
        job = s.next_job++;
    }
    const auto model_id = model->id;
    auto finished = [vnc, job, model_id](nrta_seq_t, NRT_STATUS status) {
        leave_flight(vnc);
        callback_slot callback;
        {
            std::lock_guard lock(state().mutex);
            callback = state().registered;
        }
        if (callback.function == nullptr) callback.function = default_callback;
        callback.function(callback.params, model_id, vnc, job, status);
    };
    try {
        const auto result =
            schedule(fn, {vnc, xu_kind::compute, 0}, execution_start(fn, model, input, output), finished);
        if (const auto* status = std::get_if<NRT_STATUS>(&result)) {
            leave_flight(vnc); // refused: nrt_execute says so, the callback hears nothing
            return *status;
        }
    } catch (...) {
        leave_flight(vnc);
        throw;
    }
    return NRT_SUCCESS;
}

} // namespace neuron::shim

NRT_API NRT_STATUS nrt_register_async_exec_callback(NRT_ASYNC_EXEC_STATUS_CALLBACK callback, void* params) {
    if (callback == nullptr) return neuron::shim::invalid("nrt_register_async_exec_callback", "callback is NULL");
    std::lock_guard lock(neuron::shim::state().mutex);
    neuron::shim::state().registered = {callback, params};
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_async_drain_queued_execs(int32_t vnc) {
    const char* fn = "nrt_async_drain_queued_execs";
    return neuron::shim::guarded(fn, [&]() -> NRT_STATUS {
        if (const auto status = neuron::shim::runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (vnc < 0 || static_cast<std::uint32_t>(vnc) >= neuron::shim::runtime::get().session().count) {
            return neuron::shim::invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
        }
        if (!neuron::shim::drain_units(vnc)) {
            return neuron::shim::invalid(fn, "called from an execution's callback: its own queue cannot drain");
        }
        return NRT_SUCCESS;
    });
}
