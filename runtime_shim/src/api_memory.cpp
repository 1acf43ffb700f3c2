// Device memory mapped into the process, and the hardware queries an
// emulated instance answers (nrt-api-surface.md §4.2, §5.2).

#include "nrt/nrt_experimental.h"

#include "api.h"
#include "mapped_memory.h"
#include "runtime.h"

#include <cstring>

using namespace neuron::shim;

NRT_API NRT_STATUS nrt_memcpy_to_device(void* dest, const void* src, size_t size) {
    const char* fn = "nrt_memcpy_to_device";
    if (dest == nullptr || (src == nullptr && size > 0)) return invalid(fn, "dest and src must not be NULL");
    if (!inside_mapping(dest, size)) {
        return invalid(fn, std::to_string(size) +
                               " bytes at the destination are not inside one tensor or mapped HBM region");
    }
    if (size > 0) std::memmove(dest, src, size);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_get_hbm_mmap_va(int device_id, int hbm_idx, void** addr, size_t* size) {
    const char* fn = "nrt_get_hbm_mmap_va";
    if (addr == nullptr || size == nullptr) return invalid(fn, "addr and size must not be NULL");
    return guarded(fn, [&] { return hbm_region(fn, device_id, hbm_idx, *addr, *size); });
}

// No EFA device on an emulated instance: nothing is registered for
// peer-direct, so there is no dma-buf to export and no NIC to name.
NRT_API NRT_STATUS nrt_get_dmabuf_fd(uint64_t, uint64_t, int* fd) {
    const char* fn = "nrt_get_dmabuf_fd";
    if (fd == nullptr) return invalid(fn, "fd is NULL");
    log_error(fn,
              "no EFA device: no device memory is registered for peer-direct, so none can be exported as a dma-buf");
    return NRT_FAILURE;
}

NRT_API NRT_STATUS nrt_get_attached_efa_bdf(const void* va, char* efa_bdf, size_t* len) {
    const char* fn = "nrt_get_attached_efa_bdf";
    if (va == nullptr || efa_bdf == nullptr || len == nullptr)
        return invalid(fn, "va, efa_bdf and len must not be NULL");
    log_error(fn, "no EFA device is attached to any Neuron device of this instance");
    return NRT_FAILURE;
}

// The emulator numbers devices as the host does (no container remapping), and
// routes by that number: host id and routing id are the device's index.
NRT_API NRT_STATUS nrt_host_device_id_get(int neuron_dev, uint32_t* host_device_id) {
    const char* fn = "nrt_host_device_id_get";
    if (host_device_id == nullptr) return invalid(fn, "host_device_id is NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        const auto instance = runtime::get().describe(fn);
        if (!instance) return NRT_FAILURE;
        if (neuron_dev < 0 || static_cast<std::uint32_t>(neuron_dev) >= instance->device_count) {
            return invalid(fn, "Neuron device " + std::to_string(neuron_dev) + " does not exist: " + instance->name +
                                   " has " + std::to_string(instance->device_count));
        }
        *host_device_id = static_cast<uint32_t>(neuron_dev);
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_host_device_id_rid_map_get(uint32_t* count, uint32_t* host_did_to_rid_map) {
    const char* fn = "nrt_host_device_id_rid_map_get";
    if (count == nullptr || host_did_to_rid_map == nullptr) return invalid(fn, "count and the map must not be NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        const auto instance = runtime::get().describe(fn);
        if (!instance) return NRT_FAILURE;
        if (*count < instance->device_count) {
            log_error(fn, "the map has room for " + std::to_string(*count) + " devices; " + instance->name + " has " +
                              std::to_string(instance->device_count));
            *count = instance->device_count;
            return NRT_RESOURCE;
        }
        for (std::uint32_t d = 0; d < instance->device_count; ++d) host_did_to_rid_map[d] = d;
        *count = instance->device_count;
        return NRT_SUCCESS;
    });
}

// The emulated pooling engine runs no microcode: images given before nrt_init
// are checked and accepted, as the header asks; afterwards they are refused.
NRT_API NRT_STATUS nrt_set_pool_eng_ucode(const nrt_ucode_info* ucode_info) {
    const char* fn = "nrt_set_pool_eng_ucode";
    if (ucode_info == nullptr) return invalid(fn, "ucode_info is NULL");
    for (const auto* image : {&ucode_info->iram, &ucode_info->dram}) {
        if (image->bin == nullptr || image->size == 0) return invalid(fn, "an IRAM or DRAM image is empty");
    }
    if (runtime::get().generation() != 0) return invalid(fn, "microcode is loaded by nrt_init: call this before it");
    return NRT_SUCCESS;
}

NRT_API void* nrt_get_libnccl_net(int* err, char* err_msg, size_t err_msg_size) {
    static constexpr char why[] = "neuron-emu has no collectives network plugin (no EFA)";
    if (err != nullptr) *err = 1;
    if (err_msg != nullptr && err_msg_size > 0) {
        std::strncpy(err_msg, why, err_msg_size - 1);
        err_msg[err_msg_size - 1] = '\0';
    }
    log_error("nrt_get_libnccl_net", why);
    return nullptr;
}
