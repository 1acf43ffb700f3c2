// Models and execution (nrt-api.md §3.3, §3.5).

#include "nrt/nrt_experimental.h"

#include "api.h"
#include "hardware_error_log.h"
#include "objects.h"
#include "output_rules.h"
#include "runtime.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

using namespace neuron::shim;
using neuron::protocol::message_type;
using neuron::protocol::tensor_usage;

namespace {

NRT_STATUS check_model(const char* fn, const nrt_model_t* model) {
    if (model == nullptr) return invalid(fn, "model is NULL");
    if (model->generation != runtime::get().generation()) {
        log_error(fn, "the model was loaded before the last nrt_close");
        return NRT_INVALID_HANDLE;
    }
    return NRT_SUCCESS;
}

// The set's tensor for each of the model's tensors of `usage`, checked for size.
NRT_STATUS bind_tensors(const char* fn, const nrt_model_t* model, const nrt_tensor_set_t* set, tensor_usage usage,
                        std::map<std::string, nrt_tensor*>& bound) {
    if (set == nullptr) return invalid(fn, usage == tensor_usage::input ? "input set is NULL" : "output set is NULL");
    const auto& tensors = static_cast<const tensor_set*>(set)->tensors;
    for (const auto& t : model->tensors) {
        if (t.usage != usage) continue;
        const auto it = tensors.find(t.name);
        if (it == tensors.end()) return invalid(fn, "no tensor named '" + t.name + "' in the " + (usage == tensor_usage::input ? "input" : "output") + " set");
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

execution_place place_of(const nrt_model_t& model) {
    const auto session = runtime::get().session();
    const auto per_device = std::max<std::uint32_t>(session.instance.physical_cores_per_device, 1);
    const auto physical = model.global_core * session.lnc;
    return {physical / per_device, physical % per_device, model.id};
}

NRT_STATUS execute(const char* fn, nrt_model_t* model, const nrt_tensor_set_t* input_set, nrt_tensor_set_t* output_set,
                   int repeat) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (const auto status = check_model(fn, model); status != NRT_SUCCESS) return status;
    if (repeat < 1) return invalid(fn, "repeat_count must be at least 1");
    std::map<std::string, nrt_tensor*> inputs;
    std::map<std::string, nrt_tensor*> outputs;
    if (const auto s = bind_tensors(fn, model, input_set, tensor_usage::input, inputs); s != NRT_SUCCESS) return s;
    if (const auto s = bind_tensors(fn, model, output_set, tensor_usage::output, outputs); s != NRT_SUCCESS) return s;
    const auto r = runtime::get().client()->request(
        message_type::execute,
        neuron::protocol::execute{model->id, static_cast<std::uint32_t>(repeat), model->exec_timeout_ns},
        message_type::executed);
    const auto done = control_client::decode<neuron::protocol::executed>(r, "executed");
    if (done.status != NRT_SUCCESS) {
        auto where = place_of(*model);
        where.dma_engine = done.dma_engine;
        log_hardware_error(fn, done.status, where);
        return static_cast<NRT_STATUS>(done.status);
    }
    for (const auto& t : model->tensors) {
        if (t.usage != tensor_usage::output) continue;
        std::vector<const std::uint8_t*> sources;
        for (const auto& name : t.sources) sources.push_back(inputs.at(name)->data());
        apply_output_rule(t, outputs.at(t.name)->data(), sources);
    }
    return NRT_SUCCESS;
}

} // namespace

NRT_API NRT_STATUS nrt_load(const void* neff_bytes, size_t size, int32_t vnc, int32_t, nrt_model_t** model) {
    const char* fn = "nrt_load";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (neff_bytes == nullptr || model == nullptr) return invalid(fn, "neff_bytes and model must not be NULL");
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (size == 0 || size > neuron::protocol::max_model_file_bytes) {
            return invalid(fn, "a model file has 1 to " + std::to_string(neuron::protocol::max_model_file_bytes) + " bytes, not " + std::to_string(size));
        }
        std::int32_t global = -1;
        if (vnc >= 0) {
            const auto g = runtime::get().global_core(vnc);
            if (!g) return invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
            global = static_cast<std::int32_t>(*g);
        }
        const auto r = runtime::get().client()->request(
            message_type::load_model,
            neuron::protocol::load_model{global, std::string(static_cast<const char*>(neff_bytes), size)},
            message_type::model_loaded);
        const auto loaded = control_client::decode<neuron::protocol::model_loaded>(r, "model_loaded");
        auto m = std::make_unique<nrt_model>();
        m->id = loaded.model_id;
        m->vnc = static_cast<int>(loaded.logical_core - runtime::get().session().first);
        m->global_core = loaded.logical_core;
        m->name = loaded.name;
        m->generation = runtime::get().generation();
        m->exec_timeout_ns = exec_timeout_ns(fn);
        m->tensors = loaded.tensors;
        *model = m.release();
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_load_collectives(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count, uint32_t,
                                        uint32_t, nrt_model_t** model) {
    // Collectives are not emulated; the model itself loads like any other.
    return nrt_load(neff_bytes, size, vnc, vnc_count, model);
}

NRT_API NRT_STATUS nrt_unload(nrt_model_t* model) {
    const char* fn = "nrt_unload";
    if (model == nullptr) return invalid(fn, "model is NULL");
    // The handle is gone afterwards whatever happens: the caller cannot use it again.
    const std::unique_ptr<nrt_model> owned(model);
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (model->generation != runtime::get().generation()) return NRT_SUCCESS; // released with its session
        runtime::get().client()->request(message_type::unload_model, neuron::protocol::unload_model{model->id},
                                         message_type::ok);
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_get_model_nc_count(const nrt_model_t* model, uint32_t* vnc_count) {
    if (model == nullptr || vnc_count == nullptr) return invalid("nrt_get_model_nc_count", "model and vnc_count must not be NULL");
    *vnc_count = 1;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_get_model_vnc_count(const nrt_model_t* model, uint32_t* vnc_count) {
    return nrt_get_model_nc_count(model, vnc_count);
}

NRT_API NRT_STATUS nrt_get_model_instance_count(nrt_model_t* model, uint32_t* instance_count) {
    return nrt_get_model_nc_count(model, instance_count);
}

NRT_API NRT_STATUS nrt_get_model_info(const nrt_model_t* model, nrt_model_info_t* info, size_t info_size_in,
                                      size_t* info_size_out) {
    const char* fn = "nrt_get_model_info";
    if (model == nullptr || info == nullptr) return invalid(fn, "model and info must not be NULL");
    nrt_model_info_t full{static_cast<uint32_t>(model->vnc)};
    const auto n = std::min(info_size_in, sizeof(full));
    std::memcpy(info, &full, n);
    if (info_size_out != nullptr) *info_size_out = n;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_get_model_tensor_info(nrt_model_t* model, nrt_tensor_info_array_t** tensor_info) {
    const char* fn = "nrt_get_model_tensor_info";
    if (model == nullptr || tensor_info == nullptr) return invalid(fn, "model and tensor_info must not be NULL");
    const auto count = model->tensors.size();
    auto* array = static_cast<nrt_tensor_info_array_t*>(
        std::calloc(1, sizeof(nrt_tensor_info_array_t) + count * sizeof(nrt_tensor_info_t)));
    if (array == nullptr) return NRT_RESOURCE;
    array->tensor_count = count;
    for (std::size_t i = 0; i < count; ++i) {
        const auto& t = model->tensors[i];
        auto& info = array->tensor_array[i];
        std::strncpy(info.name, t.name.c_str(), NRT_TENSOR_NAME_MAX - 1);
        info.usage = t.usage == tensor_usage::input ? NRT_TENSOR_USAGE_INPUT : NRT_TENSOR_USAGE_OUTPUT;
        info.size = t.size;
        info.dtype = static_cast<nrt_dtype_t>(t.dtype);
        info.ndim = static_cast<uint32_t>(t.shape.size());
        info.shape = static_cast<uint32_t*>(std::calloc(t.shape.size() + 1, sizeof(uint32_t)));
        for (std::size_t d = 0; info.shape != nullptr && d < t.shape.size(); ++d) info.shape[d] = static_cast<uint32_t>(t.shape[d]);
    }
    *tensor_info = array;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t* tensor_info) {
    if (tensor_info == nullptr) return NRT_SUCCESS;
    for (uint64_t i = 0; i < tensor_info->tensor_count; ++i) std::free(tensor_info->tensor_array[i].shape);
    std::free(tensor_info);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_execute(nrt_model_t* model, const nrt_tensor_set_t* input_set, nrt_tensor_set_t* output_set) {
    return guarded("nrt_execute", [&] { return execute("nrt_execute", model, input_set, output_set, 1); });
}

NRT_API NRT_STATUS nrt_execute_repeat(nrt_model_t* model, const nrt_tensor_set_t* input_set, nrt_tensor_set_t* output_set,
                                      int repeat_count) {
    return guarded("nrt_execute_repeat", [&] { return execute("nrt_execute_repeat", model, input_set, output_set, repeat_count); });
}
