// Models and execution (nrt-api.md §3.3, §3.5).

#include "nrt/nrt_experimental.h"

#include "api.h"
#include "execution.h"
#include "execution_units.h"
#include "implicit_async.h"
#include "model_upload.h"
#include "objects.h"
#include "runtime.h"
#include "sys_trace.h"

#include <algorithm>
#include <cstring>

using namespace neuron::shim;
using neuron::protocol::message_type;
using neuron::protocol::tensor_usage;

NRT_API NRT_STATUS nrt_load(const void* neff_bytes, size_t size, int32_t vnc, int32_t, nrt_model_t** model) {
    const sys_trace::api_event trace(sys_trace::event_type::nrt_load, vnc);
    const char* fn = "nrt_load";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (neff_bytes == nullptr || model == nullptr) return invalid(fn, "neff_bytes and model must not be NULL");
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (size == 0) return invalid(fn, "the NEFF is empty (size 0)");
        if (size > neuron::protocol::max_neff_bytes) {
            return invalid(fn, "a NEFF of " + std::to_string(size) + " bytes: the emulator loads at most " +
                                   std::to_string(neuron::protocol::max_neff_bytes >> 30) + " GiB");
        }
        std::int32_t global = -1;
        if (vnc >= 0) {
            const auto g = runtime::get().global_core(vnc);
            if (!g) return invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
            global = static_cast<std::int32_t>(*g);
        }
        const auto loaded = upload_model(neff_bytes, size, global);
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

// A model file holds no collectives of its own: the model loads like any
// other once the worker it names is one of its job (the host-side
// collectives meet in the emulator; collective_requests.h).
NRT_API NRT_STATUS nrt_load_collectives(const void* neff_bytes, size_t size, int32_t vnc, int32_t vnc_count,
                                        uint32_t ctx_device_id, uint32_t ctx_device_count, nrt_model_t** model) {
    if (ctx_device_count == 0 || ctx_device_id >= ctx_device_count) {
        return invalid("nrt_load_collectives", "worker " + std::to_string(ctx_device_id) + " is not one of " +
                                                   std::to_string(ctx_device_count));
    }
    return nrt_load(neff_bytes, size, vnc, vnc_count, model);
}

NRT_API NRT_STATUS nrt_unload(nrt_model_t* model) {
    const sys_trace::api_event trace(sys_trace::event_type::nrt_unload, model);
    const char* fn = "nrt_unload";
    if (model == nullptr) return invalid(fn, "model is NULL");
    // Executions queued for it finish first. From an execution's callback
    // they cannot (they wait for that callback): refused, the handle kept.
    if (model->vnc >= 0 && !drain_units(model->vnc)) {
        return invalid(fn, "called from an execution's callback while executions of the model are queued");
    }
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
    if (model == nullptr || vnc_count == nullptr)
        return invalid("nrt_get_model_nc_count", "model and vnc_count must not be NULL");
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
        for (std::size_t d = 0; info.shape != nullptr && d < t.shape.size(); ++d)
            info.shape[d] = static_cast<uint32_t>(t.shape[d]);
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
    const char* fn = "nrt_execute";
    return guarded(fn, [&] {
        if (const auto limit = implicit_async_limit(fn))
            return execute_in_background(fn, model, input_set, output_set, *limit);
        return execute_model(fn, model, input_set, output_set, 1);
    });
}

NRT_API NRT_STATUS nrt_execute_repeat(nrt_model_t* model, const nrt_tensor_set_t* input_set,
                                      nrt_tensor_set_t* output_set, int repeat_count) {
    return guarded("nrt_execute_repeat",
                   [&] { return execute_model("nrt_execute_repeat", model, input_set, output_set, repeat_count); });
}
