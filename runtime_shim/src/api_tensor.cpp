// Tensors and tensor sets (nrt-api.md §3.4).

#include "api.h"
#include "mapped_memory.h"
#include "objects.h"
#include "runtime.h"
#include "sys_trace.h"
#include "tensor_checks.h"
#include "tensor_use.h"

#include <cstdlib>
#include <cstring>

using namespace neuron::shim;

namespace {

constexpr std::uint32_t tensors_host = 2;   // mem_alloc_category_t TENSORS_HOST
constexpr std::uint32_t tensors_device = 9; // TENSORS_DEVICE

} // namespace

tensor_storage::~tensor_storage() {
    remove_mapping(data);
    if (allocation) runtime::get().free(generation, *allocation);
    if (device_vnc) runtime::get().account_device_bytes(generation, *device_vnc, -static_cast<std::int64_t>(size));
    if (owned) std::free(data);
}

NRT_API NRT_STATUS nrt_tensor_allocate(nrt_tensor_placement_t placement, int vnc, size_t size, const char* name,
                                       nrt_tensor_t** tensor) {
    const char* fn = "nrt_tensor_allocate";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (tensor == nullptr) return invalid(fn, "tensor is NULL");
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        if (size == 0) return invalid(fn, "a tensor needs at least one byte");
        const auto placement_value = raw_value(placement);
        if (placement_value < NRT_TENSOR_PLACEMENT_DEVICE || placement_value > NRT_TENSOR_PLACEMENT_VIRTUAL) {
            return invalid(fn, "unknown placement " + std::to_string(placement_value));
        }
        auto storage = std::make_shared<tensor_storage>();
        storage->data = static_cast<std::uint8_t*>(std::calloc(size, 1));
        if (storage->data == nullptr) return NRT_RESOURCE;
        storage->size = size;
        storage->owned = true;
        add_mapping(storage->data, size);
        storage->generation = runtime::get().generation();
        if (placement == NRT_TENSOR_PLACEMENT_DEVICE) {
            const auto global = runtime::get().global_core(vnc);
            if (!global) return invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
            storage->allocation =
                runtime::get().allocate(*global, neuron::protocol::memory_location::device, tensors_device, size);
            storage->device_vnc = static_cast<std::uint32_t>(vnc);
            runtime::get().account_device_bytes(storage->generation, static_cast<std::uint32_t>(vnc),
                                                static_cast<std::int64_t>(size));
        } else if (placement == NRT_TENSOR_PLACEMENT_HOST) {
            const auto global = runtime::get().global_core(vnc < 0 ? 0 : vnc);
            if (!global) return invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
            storage->allocation =
                runtime::get().allocate(*global, neuron::protocol::memory_location::host, tensors_host, size);
        }
        auto t = std::make_unique<nrt_tensor>();
        t->name = name != nullptr ? name : "";
        t->placement = placement;
        t->vnc = vnc;
        t->storage = std::move(storage);
        t->size = size;
        *tensor = t.release();
        return NRT_SUCCESS;
    });
}

NRT_API void nrt_tensor_free(nrt_tensor_t** tensor) {
    if (tensor == nullptr || *tensor == nullptr) return;
    guarded("nrt_tensor_free", [&] {
        wait_until_unused(*tensor); // a queued execution or transfer still uses its bytes
        delete *tensor;
        return NRT_SUCCESS;
    });
    *tensor = nullptr;
}

NRT_API NRT_STATUS nrt_tensor_read(const nrt_tensor_t* tensor, void* buf, size_t offset, size_t size) {
    const sys_trace::api_event trace(sys_trace::event_type::nrt_tensor_read, tensor);
    if (const auto status = check_tensor_io("nrt_tensor_read", tensor, buf, offset, size); status != NRT_SUCCESS)
        return status;
    wait_until_unused(tensor);
    if (size > 0) std::memcpy(buf, tensor->data() + offset, size);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_tensor_write(nrt_tensor_t* tensor, const void* buf, size_t offset, size_t size) {
    const sys_trace::api_event trace(sys_trace::event_type::nrt_tensor_write, tensor);
    if (const auto status = check_tensor_io("nrt_tensor_write", tensor, buf, offset, size); status != NRT_SUCCESS)
        return status;
    wait_until_unused(tensor);
    if (size > 0) std::memcpy(tensor->data() + offset, buf, size);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_tensor_copy(const nrt_tensor_t* src, size_t src_offset, nrt_tensor_t* dst, size_t dst_offset,
                                   size_t size) {
    const sys_trace::api_event trace(sys_trace::event_type::nrt_tensor_copy, src);
    const char* fn = "nrt_tensor_copy";
    if (src == nullptr || dst == nullptr) return invalid(fn, "source and destination must not be NULL");
    if (const auto status = check_tensor_io(fn, src, src, src_offset, size); status != NRT_SUCCESS) return status;
    if (const auto status = check_tensor_io(fn, dst, dst, dst_offset, size); status != NRT_SUCCESS) return status;
    if (src->placement == NRT_TENSOR_PLACEMENT_DEVICE && dst->placement == NRT_TENSOR_PLACEMENT_DEVICE &&
        src->vnc != dst->vnc) {
        return invalid(fn, "device-to-device copies must stay on one NeuronCore");
    }
    if (size > 0) std::memmove(dst->data() + dst_offset, src->data() + src_offset, size);
    return NRT_SUCCESS;
}

NRT_API size_t nrt_tensor_get_size(const nrt_tensor_t* tensor) { return tensor == nullptr ? 0 : tensor->size; }

NRT_API NRT_STATUS nrt_tensor_memset(nrt_tensor_t* tensor, uint64_t offset, int value, size_t size) {
    if (const auto status = check_tensor_io("nrt_tensor_memset", tensor, tensor, offset, size); status != NRT_SUCCESS)
        return status;
    if (size > 0) std::memset(tensor->data() + offset, value, size);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_tensor_allocate_empty(const char* name, nrt_tensor_t** tensor) {
    const char* fn = "nrt_tensor_allocate_empty";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (tensor == nullptr) return invalid(fn, "tensor is NULL");
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        auto t = std::make_unique<nrt_tensor>();
        t->name = name != nullptr ? name : "";
        *tensor = t.release();
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_tensor_attach_buffer(nrt_tensor_t* tensor, void* buffer, size_t size) {
    const char* fn = "nrt_tensor_attach_buffer";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (tensor == nullptr || buffer == nullptr) return invalid(fn, "tensor and buffer must not be NULL");
        auto storage = std::make_shared<tensor_storage>();
        storage->data = static_cast<std::uint8_t*>(buffer); // the caller's; never freed here
        storage->size = size;
        add_mapping(buffer, size);
        tensor->storage = std::move(storage);
        tensor->placement = NRT_TENSOR_PLACEMENT_VIRTUAL;
        tensor->offset = 0;
        tensor->size = size;
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_tensor_allocate_slice(const nrt_tensor_t* source, size_t offset, size_t size, const char* name,
                                             nrt_tensor_t** slice) {
    const char* fn = "nrt_tensor_allocate_slice";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (slice == nullptr) return invalid(fn, "slice is NULL");
        if (const auto status = check_tensor_io(fn, source, source, offset, size); status != NRT_SUCCESS) return status;
        auto t = std::make_unique<nrt_tensor>();
        t->name = name != nullptr ? name : "";
        t->placement = source->placement;
        t->vnc = source->vnc;
        t->storage = source->storage; // the bytes live as long as any view of them
        t->offset = source->offset + offset;
        t->size = size;
        *slice = t.release();
        return NRT_SUCCESS;
    });
}

NRT_API void* nrt_tensor_get_va(const nrt_tensor_t* tensor) { return tensor == nullptr ? nullptr : tensor->data(); }

NRT_API NRT_STATUS nrt_tensor_get_device_allocation_info(const nrt_tensor_t* tensor,
                                                         nrt_tensor_device_allocation_info_t* info) {
    const char* fn = "nrt_tensor_get_device_allocation_info";
    if (tensor == nullptr || info == nullptr) return invalid(fn, "tensor and info must not be NULL");
    if (tensor->placement != NRT_TENSOR_PLACEMENT_DEVICE || !tensor->storage || !tensor->storage->allocation) {
        return invalid(fn, "tensor '" + tensor->name + "' is not in device memory");
    }
    // A stable, distinct device address per allocation (the emulator's id, page aligned).
    info->physical_address = 0x4000000000ull + (*tensor->storage->allocation << 32) + tensor->offset;
    info->size = tensor->size;
    info->hbm_index = 0;
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_tensor_read_batch(const nrt_tensor_batch_t* batches, uint64_t num_batches, bool) {
    if (batches == nullptr && num_batches > 0) return invalid("nrt_tensor_read_batch", "batches is NULL");
    for (uint64_t b = 0; b < num_batches; ++b) {
        if (batches[b].ops == nullptr && batches[b].num_ops > 0) return invalid("nrt_tensor_read_batch", "ops is NULL");
        for (uint32_t i = 0; i < batches[b].num_ops; ++i) {
            const auto& op = batches[b].ops[i];
            if (const auto s = nrt_tensor_read(batches[b].tensor, op.buffer, op.offset, op.size); s != NRT_SUCCESS)
                return s;
        }
    }
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_tensor_write_batch(const nrt_tensor_batch_t* batches, uint64_t num_batches, bool) {
    if (batches == nullptr && num_batches > 0) return invalid("nrt_tensor_write_batch", "batches is NULL");
    for (uint64_t b = 0; b < num_batches; ++b) {
        if (batches[b].ops == nullptr && batches[b].num_ops > 0)
            return invalid("nrt_tensor_write_batch", "ops is NULL");
        for (uint32_t i = 0; i < batches[b].num_ops; ++i) {
            const auto& op = batches[b].ops[i];
            auto* t = const_cast<nrt_tensor_t*>(batches[b].tensor);
            if (const auto s = nrt_tensor_write(t, op.buffer, op.offset, op.size); s != NRT_SUCCESS) return s;
        }
    }
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_allocate_tensor_set(nrt_tensor_set_t** result) {
    if (result == nullptr) return invalid("nrt_allocate_tensor_set", "result is NULL");
    return guarded("nrt_allocate_tensor_set", [&] {
        *result = new tensor_set;
        return NRT_SUCCESS;
    });
}

NRT_API void nrt_destroy_tensor_set(nrt_tensor_set_t** set) {
    if (set == nullptr || *set == nullptr) return;
    delete static_cast<tensor_set*>(*set); // the tensors stay: they belong to the caller
    *set = nullptr;
}

NRT_API NRT_STATUS nrt_add_tensor_to_tensor_set(nrt_tensor_set_t* set, const char* name, nrt_tensor_t* tensor) {
    const char* fn = "nrt_add_tensor_to_tensor_set";
    if (set == nullptr || name == nullptr || tensor == nullptr)
        return invalid(fn, "set, name and tensor must not be NULL");
    return guarded(fn, [&] {
        static_cast<tensor_set*>(set)->tensors[name] = tensor; // adds or replaces
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_get_tensor_from_tensor_set(nrt_tensor_set_t* set, const char* name, nrt_tensor_t** tensor) {
    const char* fn = "nrt_get_tensor_from_tensor_set";
    if (set == nullptr || name == nullptr || tensor == nullptr)
        return invalid(fn, "set, name and tensor must not be NULL");
    const auto& tensors = static_cast<tensor_set*>(set)->tensors;
    const auto it = tensors.find(name);
    if (it == tensors.end()) return NRT_FAILURE; // as documented: absent
    *tensor = it->second;
    return NRT_SUCCESS;
}
