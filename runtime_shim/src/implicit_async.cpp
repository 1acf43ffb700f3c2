#include "implicit_async.h"

#include "api.h"
#include "async_requests.h"
#include "execution.h"
#include "execution_units.h"
#include "objects.h"
#include "runtime.h"
#include "sys_trace.h"

#include <charconv>
#include <condition_variable>
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

std::mutex state_mutex;
std::condition_variable released;
callback_slot registered;
std::map<std::uint32_t, std::uint32_t> in_flight;        // per logical core
std::map<const tensor_storage*, std::uint32_t> in_use;   // bytes queued executions use
std::uint64_t next_job = 1;

// The runtime's own callback when the application registered none.
void default_callback(void*, uint32_t model_id, uint32_t vnc, uint64_t job_id, NRT_STATUS status) {
    if (status == NRT_SUCCESS) return;
    log_error("nrt_execute", "execution " + std::to_string(job_id) + " of model " + std::to_string(model_id) +
                                 " on NeuronCore " + std::to_string(vnc) + " ended with status " +
                                 std::to_string(static_cast<int>(status)));
}

std::vector<const tensor_storage*> storages_of(const nrt_tensor_set_t* set) {
    std::vector<const tensor_storage*> out;
    for (const auto& [name, t] : static_cast<const tensor_set*>(set)->tensors) {
        if (t != nullptr && t->storage) out.push_back(t->storage.get());
    }
    return out;
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
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (const auto status = check_model(fn, model); status != NRT_SUCCESS) return status;
    if (input == nullptr || output == nullptr) return invalid(fn, "input and output sets must not be NULL");
    const auto vnc = static_cast<std::uint32_t>(model->vnc);
    auto used = storages_of(input);
    for (const auto* s : storages_of(output)) used.push_back(s);
    std::uint64_t job = 0;
    {
        std::lock_guard lock(state_mutex);
        if (in_flight[vnc] >= limit) {
            log_error(fn, std::to_string(limit) + " executions are already in flight on NeuronCore " + std::to_string(vnc));
            return NRT_QUEUE_FULL;
        }
        ++in_flight[vnc];
        for (const auto* s : used) ++in_use[s];
        job = next_job++;
    }
    const auto model_id = model->id;
    auto finished = [vnc, used, job, model_id](nrta_seq_t, NRT_STATUS status) {
        callback_slot callback;
        {
            std::lock_guard lock(state_mutex);
            --in_flight[vnc];
            for (const auto* s : used) {
                if (--in_use[s] == 0) in_use.erase(s);
            }
            callback = registered;
        }
        released.notify_all();
        if (callback.function == nullptr) callback.function = default_callback;
        callback.function(callback.params, model_id, vnc, job, status);
    };
    const auto result = schedule(fn, {vnc, xu_kind::compute, 0}, execution_start(fn, model, input, output), finished);
    if (const auto* status = std::get_if<NRT_STATUS>(&result)) {
        finished(0, *status);
        return *status;
    }
    return NRT_SUCCESS;
}

void wait_until_unused(const nrt_tensor_t* tensor) {
    if (tensor == nullptr || !tensor->storage) return;
    std::unique_lock lock(state_mutex);
    released.wait(lock, [&] { return !in_use.contains(tensor->storage.get()); });
}

} // namespace neuron::shim

NRT_API NRT_STATUS nrt_register_async_exec_callback(NRT_ASYNC_EXEC_STATUS_CALLBACK callback, void* params) {
    if (callback == nullptr) return neuron::shim::invalid("nrt_register_async_exec_callback", "callback is NULL");
    std::lock_guard lock(neuron::shim::state_mutex);
    neuron::shim::registered = {callback, params};
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_async_drain_queued_execs(int32_t vnc) {
    const char* fn = "nrt_async_drain_queued_execs";
    return neuron::shim::guarded(fn, [&]() -> NRT_STATUS {
        if (const auto status = neuron::shim::runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (vnc < 0 || static_cast<std::uint32_t>(vnc) >= neuron::shim::runtime::get().session().count) {
            return neuron::shim::invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
        }
        neuron::shim::drain_units(vnc);
        return NRT_SUCCESS;
    });
}
