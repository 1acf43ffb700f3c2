// Collectives among the workers of an emulated instance (nrt-api-surface.md
// §4.2, §5.2): the global communicator, barriers and all-gathers of host
// buffers. Workers meet in the emulator; see collective_requests.h.

#include "nrt/nrt_experimental.h"

#include "api.h"
#include "collective_requests.h"
#include "runtime.h"

#include <cstring>

using namespace neuron::shim;

namespace {

NRT_STATUS check_worker(const char* fn, std::int64_t vnc, std::uint32_t id, std::uint32_t count) {
    if (const auto status = runtime::get().check(fn); status != NRT_SUCCESS) return status;
    if (vnc < 0 || !runtime::get().global_core(static_cast<int>(vnc))) {
        return invalid(fn, "NeuronCore " + std::to_string(vnc) + " is not one of this process's");
    }
    if (count == 0 || id >= count) {
        return invalid(fn, "worker " + std::to_string(id) + " is not one of " + std::to_string(count));
    }
    return require_job(fn, count);
}

} // namespace

// The emulator needs no set-up for a communicator: the workers meet by its
// size when they first run a collective. These check and accept.
NRT_API NRT_STATUS nrt_build_global_comm(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
    const char* fn = "nrt_build_global_comm";
    return guarded(fn, [&] { return check_worker(fn, vnc, g_device_id, g_device_count); });
}

NRT_API NRT_STATUS nrt_cc_global_comm_init(uint32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
    const char* fn = "nrt_cc_global_comm_init";
    return guarded(fn, [&] { return check_worker(fn, vnc, g_device_id, g_device_count); });
}

// Collectives of every stream meet in the emulator alike: a stream needs no set-up.
NRT_API NRT_STATUS nrt_cc_create_stream(uint32_t) {
    const char* fn = "nrt_cc_create_stream";
    return guarded(fn, [&] { return runtime::get().check(fn); });
}

NRT_API NRT_STATUS nrt_barrier(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count) {
    const char* fn = "nrt_barrier";
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto s = check_worker(fn, vnc, g_device_id, g_device_count); s != NRT_SUCCESS) return s;
        std::string gathered;
        return run_collective(fn,
                              {global_group(g_device_count),
                               neuron::protocol::collective_kind::barrier,
                               g_device_id,
                               g_device_count,
                               static_cast<std::uint32_t>(vnc),
                               {}},
                              gathered);
    });
}

NRT_API NRT_STATUS nrt_all_gather(int32_t vnc, uint32_t g_device_id, uint32_t g_device_count, uint32_t rank_input_size,
                                  void* input, void* output) {
    const char* fn = "nrt_all_gather";
    if ((input == nullptr || output == nullptr) && rank_input_size > 0)
        return invalid(fn, "input and output must not be NULL");
    return guarded(fn, [&]() -> NRT_STATUS {
        if (const auto s = check_worker(fn, vnc, g_device_id, g_device_count); s != NRT_SUCCESS) return s;
        std::string gathered;
        const auto status = run_collective(fn,
                                           {global_group(g_device_count), neuron::protocol::collective_kind::all_gather,
                                            g_device_id, g_device_count, static_cast<std::uint32_t>(vnc),
                                            std::string(static_cast<const char*>(input), rank_input_size)},
                                           gathered);
        if (status != NRT_SUCCESS) return status;
        if (gathered.size() != std::size_t{rank_input_size} * g_device_count) {
            log_error(fn, "the emulator gathered " + std::to_string(gathered.size()) + " bytes");
            return NRT_FAILURE;
        }
        if (!gathered.empty()) std::memcpy(output, gathered.data(), gathered.size());
        return NRT_SUCCESS;
    });
}
