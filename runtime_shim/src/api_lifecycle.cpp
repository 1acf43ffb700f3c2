// Lifecycle, topology and status names (nrt-api.md §1, §3.2).

#include "api.h"
#include "execution_units.h"
#include "mapped_memory.h"
#include "profile_requests.h"
#include "runtime.h"
#include "sendrecv.h"

#include "neuron/protocol/runtime_version.h"
#include "neuron/runtime_api/nrt_status_table.h"
#include "nrt/nrt_version.h" // includes nothing: after nrt.h, as with the runtime's own

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

using namespace neuron::shim;

namespace {

template <typename T>
void copy_prefix(void* destination, std::size_t size, const T& full) {
    std::memcpy(destination, &full, std::min(size, sizeof(full)));
}

NRT_STATUS count_result(const char* fn, uint32_t* out, std::optional<std::uint32_t> value) {
    if (out == nullptr) return invalid(fn, "the count pointer is NULL");
    if (!value) return NRT_FAILURE;
    *out = *value;
    return NRT_SUCCESS;
}

} // namespace

NRT_API NRT_STATUS nrt_init(nrt_framework_type_t framework, const char* fw_version, const char* fal_version) {
    const auto framework_value = raw_value(framework); // read once, without loading it as the enum
    return guarded("nrt_init", [&] {
        const auto status = runtime::get().init(framework_value, fw_version, fal_version);
        // NEURON_RT_INSPECT_ENABLE=1 captures without a call to nrt_inspect_begin;
        // a variable it cannot use is logged and captures nothing.
        if (status == NRT_SUCCESS) profile_requests::get().begin_inspect_from_environment("nrt_init");
        return status;
    });
}

NRT_API void nrt_close(void) {
    guarded("nrt_close", [] {
        if (on_unit_thread()) {
            log_error("nrt_close", "called from an execution's callback: the runtime stays open");
            return NRT_INVALID;
        }
        // A capture still running writes its profiles while the emulator has them.
        profile_requests::get().stop_inspect_at_close("nrt_close");
        // Closed first, so that the emulator ends what waits there (executions,
        // collectives) with NRT_CLOSED; then what is queued here runs out.
        runtime::get().close();
        profile_requests::get().runtime_closed();
        stop_units();
        forget_sendrecv();
        unmap_hbm_regions();
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_get_version(nrt_version_t* ver, size_t size) {
    if (ver == nullptr) return invalid("nrt_get_version", "ver is NULL");
    constexpr auto version = neuron::protocol::shim_runtime_version;
    nrt_version_t v{};
    v.rt_major = version.major;
    v.rt_minor = version.minor;
    v.rt_patch = version.patch;
    v.rt_maintenance = version.maintenance;
    std::snprintf(v.rt_detail, sizeof(v.rt_detail), "neuron-emu runtime shim %s", NEURON_EMU_VERSION);
    std::snprintf(v.git_hash, sizeof(v.git_hash), "neuron-emu");
    copy_prefix(ver, size, v);
    return NRT_SUCCESS;
}

NRT_API NRT_STATUS nrt_get_instance_info(nrt_instance_info_t* info, size_t instance_info_len) {
    const char* fn = "nrt_get_instance_info";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (info == nullptr) return invalid(fn, "info is NULL");
        const auto instance = runtime::get().describe(fn);
        if (!instance) return NRT_FAILURE;
        nrt_instance_info_t full{};
        full.family = instance->family;
        full.size = instance->size;
        std::strncpy(full.arch_name, instance->arch_name.c_str(), sizeof(full.arch_name) - 1);
        std::strncpy(full.device_revision, instance->device_revision.c_str(), sizeof(full.device_revision) - 1);
        copy_prefix(info, instance_info_len, full);
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_get_total_vnc_count(uint32_t* vnc_count) {
    const char* fn = "nrt_get_total_vnc_count";
    return guarded(fn, [&] { return count_result(fn, vnc_count, runtime::get().total_count(fn)); });
}

NRT_API NRT_STATUS nrt_get_total_nc_count(uint32_t* vnc_count) {
    const char* fn = "nrt_get_total_nc_count";
    return guarded(fn, [&] { return count_result(fn, vnc_count, runtime::get().total_count(fn)); });
}

NRT_API NRT_STATUS nrt_get_visible_vnc_count(uint32_t* vnc_count) {
    const char* fn = "nrt_get_visible_vnc_count";
    return guarded(fn, [&] { return count_result(fn, vnc_count, runtime::get().visible_count(fn)); });
}

NRT_API NRT_STATUS nrt_get_visible_nc_count(uint32_t* vnc_count) {
    const char* fn = "nrt_get_visible_nc_count";
    return guarded(fn, [&] { return count_result(fn, vnc_count, runtime::get().visible_count(fn)); });
}

NRT_API NRT_STATUS nrt_get_vnc_memory_stats(uint32_t vnc, nrt_vnc_memory_stats_t* stats, size_t stats_size_in,
                                            size_t* stats_size_out) {
    const char* fn = "nrt_get_vnc_memory_stats";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (stats == nullptr) return invalid(fn, "stats is NULL");
        if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
        const auto session = runtime::get().session();
        if (vnc >= session.count)
            return invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
        const auto cores = session.instance.physical_cores_per_device / session.lnc;
        nrt_vnc_memory_stats_t full{runtime::get().device_bytes(vnc), session.instance.device_memory_bytes / cores};
        copy_prefix(stats, stats_size_in, full);
        if (stats_size_out != nullptr) *stats_size_out = std::min(stats_size_in, sizeof(full));
        return NRT_SUCCESS;
    });
}

NRT_API const char* nrt_get_status_as_str(NRT_STATUS status) {
    const auto value = raw_value(status); // any int may arrive from C
    if (!std::in_range<std::uint32_t>(value)) return "UNKNOWN";
    const auto row = neuron::runtime_api::nrt_status_of(static_cast<std::uint32_t>(value));
    return row ? row->name : "UNKNOWN";
}
