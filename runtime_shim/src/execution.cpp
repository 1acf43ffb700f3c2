// One execution of a loaded model, as nrt_execute and the async queues run it.

#include "execution.h"

#include "api.h"
#include "hardware_error_log.h"
#include "objects.h"
#include "output_completion.h"
#include "output_rules.h"
#include "profile_requests.h"
#include "runtime.h"
#include "sys_trace.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace neuron::shim {

using protocol::message_type;
using protocol::tensor_usage;

// NEURON_RT_EXEC_TIMEOUT, read when a model loads: whole seconds, 1 to a
// year. Anything else is logged and the default (0 on the wire) kept.
std::uint64_t exec_timeout_ns(const char* fn) {
    const char* text = std::getenv("NEURON_RT_EXEC_TIMEOUT");
    if (text == nullptr || *text == '\0') return 0;
    constexpr std::uint64_t max_seconds = 365ull * 24 * 3600;
    std::uint64_t seconds = 0;
    const auto end = text + std::strlen(text);
    const auto [rest, error] = std::from_chars(text, end, seconds);
    if (error != std::errc{} || rest != end || seconds == 0 || seconds > max_seconds) {
        // The value is not echoed: it may hold bytes that would break the line.
        log_error(fn, "NEURON_RT_EXEC_TIMEOUT is not a whole number of seconds from 1 to " +
                          std::to_string(max_seconds) + ": the default applies");
        return 0;
    }
    return seconds * 1'000'000'000;
}

NRT_STATUS check_model(const char* fn, const nrt_model_t* model) {
    if (model == nullptr) return invalid(fn, "model is NULL");
    if (model->generation != runtime::get().generation()) {
        log_error(fn, "the model was loaded before the last nrt_close");
        return NRT_INVALID_HANDLE;
    }
    return NRT_SUCCESS;
}

namespace {

// The set's tensor for each of the model's tensors of `usage`, checked for size.
NRT_STATUS bind_tensors(const char* fn, const nrt_model_t* model, const nrt_tensor_set_t* set, tensor_usage usage,
                        std::map<std::string, nrt_tensor*>& bound) {
    if (set == nullptr) return invalid(fn, usage == tensor_usage::input ? "input set is NULL" : "output set is NULL");
    const auto& tensors = static_cast<const tensor_set*>(set)->tensors;
    for (const auto& t : model->tensors) {
        if (t.usage != usage) continue;
        const auto it = tensors.find(t.name);
        if (it == tensors.end())
            return invalid(fn, "no tensor named '" + t.name + "' in the " +
                                   (usage == tensor_usage::input ? "input" : "output") + " set");
        if (it->second->data() == nullptr || it->second->size != t.size) {
            return invalid(fn, "tensor '" + t.name + "' has " + std::to_string(it->second->size) + " bytes; model '" +
                                   model->name + "' needs " + std::to_string(t.size));
        }
        bound[t.name] = it->second;
    }
    return NRT_SUCCESS;
}

// The device and physical core a model runs on: its logical core's first
// physical core.
execution_place place_of(const nrt_model_t& model) {
    const auto session = runtime::get().session();
    const auto per_device = std::max<std::uint32_t>(session.instance.physical_cores_per_device, 1);
    const auto physical = model.global_core * session.lnc;
    return {physical / per_device, physical % per_device, model.id};
}

} // namespace

started_execution start_execution(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input_set,
                                  nrt_tensor_set_t* output_set, int repeat) {
    started_execution started;
    started.fn = fn;
    started.model = model;
    auto& refused = started.refused;
    if (refused = runtime::get().check(fn); refused != NRT_SUCCESS) return started;
    if (refused = check_model(fn, model); refused != NRT_SUCCESS) return started;
    if (repeat < 1) {
        refused = invalid(fn, "repeat_count must be at least 1");
        return started;
    }
    if (refused = bind_tensors(fn, model, input_set, tensor_usage::input, started.inputs); refused != NRT_SUCCESS)
        return started;
    if (refused = bind_tensors(fn, model, output_set, tensor_usage::output, started.outputs); refused != NRT_SUCCESS)
        return started;
    std::vector<const tensor_storage*> used;
    for (const auto* bound : {&started.inputs, &started.outputs}) {
        for (const auto& [name, t] : *bound) used.push_back(t->storage.get());
    }
    started.held = tensors_in_use(std::move(used));
    started.client = runtime::get().client();
    started.submitted_ns = sys_trace::host_now_ns();
    const bool profiled = profile_requests::get().wants_profile(model->id, model->vnc);
    started.request_id = started.client->submit(
        message_type::execute,
        neuron::protocol::execute{model->id, static_cast<std::uint32_t>(repeat), model->exec_timeout_ns, profiled});
    return started;
}

NRT_STATUS check_execution(const char* fn, const nrt_model_t* model, const nrt_tensor_set_t* input_set,
                           const nrt_tensor_set_t* output_set) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (const auto status = check_model(fn, model); status != NRT_SUCCESS) return status;
    std::map<std::string, nrt_tensor*> bound;
    if (const auto s = bind_tensors(fn, model, input_set, tensor_usage::input, bound); s != NRT_SUCCESS) return s;
    return bind_tensors(fn, model, output_set, tensor_usage::output, bound);
}

NRT_STATUS finish_execution(started_execution& started) {
    if (started.refused != NRT_SUCCESS) return started.refused;
    const auto release_at_the_end = std::move(started.held);
    const auto* model = started.model;
    const auto r = started.client->collect(started.request_id, message_type::executed);
    const auto done = control_client::decode<neuron::protocol::executed>(r, "executed");
    sys_trace::record_execution(static_cast<std::uint32_t>(model->vnc),
                                done.ended_ns - std::min(done.duration_ns, done.ended_ns), done.ended_ns,
                                started.submitted_ns, sys_trace::host_now_ns(), model->id,
                                static_cast<NRT_STATUS>(done.status), started.seq);
    if (done.profile_id != 0) profile_requests::get().recorded(model->id, model->vnc, done.profile_id, done.status);
    if (done.status != NRT_SUCCESS) {
        auto where = place_of(*model);
        where.dma_engine = done.dma_engine;
        log_hardware_error(started.fn, done.status, where);
        return static_cast<NRT_STATUS>(done.status);
    }
    for (const auto& t : model->tensors) {
        if (t.usage != tensor_usage::output) continue;
        std::vector<const std::uint8_t*> sources;
        for (const auto& name : t.sources) sources.push_back(started.inputs.at(name)->data());
        apply_output_rule(t, started.outputs.at(t.name)->data(), sources);
    }
    for (const auto& [name, tensor] : started.outputs) count_completion(*tensor);
    return NRT_SUCCESS;
}

NRT_STATUS execute_model(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input_set,
                         nrt_tensor_set_t* output_set, int repeat) {
    const sys_trace::api_event trace(sys_trace::execute_event(fn), model);
    auto started = start_execution(fn, model, input_set, output_set, repeat);
    return finish_execution(started);
}

} // namespace neuron::shim
