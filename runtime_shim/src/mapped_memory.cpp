#include "mapped_memory.h"

#include "api.h"
#include "runtime.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <utility>

namespace neuron::shim {
namespace {

std::mutex mappings_mutex;
struct mapping {
    std::size_t size = 0;
    std::uint32_t users = 0; // views starting at the same address (a buffer attached twice)
};
std::map<std::uintptr_t, mapping> mappings; // by start
std::map<std::pair<int, int>, std::pair<void*, std::size_t>> hbm_mappings;

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

} // namespace

void add_mapping(const void* start, std::size_t size) {
    if (start == nullptr || size == 0) return;
    std::lock_guard lock(mappings_mutex);
    auto& m = mappings[address(start)];
    m.size = std::max(m.size, size);
    ++m.users;
}

void remove_mapping(const void* start) {
    std::lock_guard lock(mappings_mutex);
    const auto it = mappings.find(address(start));
    if (it != mappings.end() && --it->second.users == 0) mappings.erase(it);
}

bool inside_mapping(const void* dest, std::size_t size) {
    const auto at = address(dest);
    std::lock_guard lock(mappings_mutex);
    auto it = mappings.upper_bound(at);
    if (it == mappings.begin()) return false;
    --it;
    const auto offset = at - it->first;
    return offset <= it->second.size && size <= it->second.size - offset;
}

NRT_STATUS hbm_region(const char* fn, int device, int hbm_idx, void*& addr, std::size_t& size) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    const auto session = runtime::get().session();
    const auto& instance = session.instance;
    const auto per_device = std::max<std::uint32_t>(instance.physical_cores_per_device, 1);
    const auto first_device = session.first * session.lnc / per_device;
    const auto last_device = ((session.first + session.count) * session.lnc - 1) / per_device;
    if (device < 0 || static_cast<std::uint32_t>(device) < first_device ||
        static_cast<std::uint32_t>(device) > last_device) {
        return invalid(fn, "Neuron device " + std::to_string(device) + " holds none of this process's NeuronCores");
    }
    if (hbm_idx < 0) return invalid(fn, "hbm_idx " + std::to_string(hbm_idx) + " is negative");
    const auto regions = std::max<std::uint32_t>(instance.memory_regions, 1);
    if (static_cast<std::uint32_t>(hbm_idx) >= regions) return NRT_INVALID_HANDLE; // the documented end of the list
    std::lock_guard lock(mappings_mutex);
    auto& mapped = hbm_mappings[{device, hbm_idx}];
    if (mapped.first == nullptr) {
        const auto bytes = static_cast<std::size_t>(instance.device_memory_bytes / regions);
        // Address space only: pages exist once written.
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            hbm_mappings.erase({device, hbm_idx});
            log_error(fn, "cannot map " + std::to_string(bytes) + " bytes of address space for HBM region " +
                              std::to_string(hbm_idx));
            return NRT_RESOURCE;
        }
        mapped = {p, bytes};
        mappings[address(p)] = {bytes, 1};
    }
    addr = mapped.first;
    size = mapped.second;
    return NRT_SUCCESS;
}

void unmap_hbm_regions() {
    std::lock_guard lock(mappings_mutex);
    for (const auto& [key, region] : hbm_mappings) {
        mappings.erase(address(region.first)); // views inside it go with it
        ::munmap(region.first, region.second);
    }
    hbm_mappings.clear();
}

} // namespace neuron::shim
