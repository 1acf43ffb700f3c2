#pragma once

#include "nrt/nrt.h"

#include "control_client.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace neuron::shim {

struct session_info {
    protocol::instance_description instance;
    std::uint64_t token = 0;
    std::uint32_t lnc = 1;
    std::uint32_t first = 0; // first owned global logical core
    std::uint32_t count = 0;
    std::uint32_t debug_stream_capacity = 65536;
    std::uint64_t generation = 0; // which nrt_init this is (allocations belong to one)
    std::string control_path;
};

// The process's runtime: START, then INITED after nrt_init, CLOSED after
// nrt_close (the header's reading of nrt-api.md §1.2: calls before
// nrt_init return NRT_UNINITIALIZED, calls after nrt_close NRT_CLOSED).
class runtime {
public:
    static runtime& get();

    // `framework` as the caller passed it (any int: see raw_value).
    NRT_STATUS init(long long framework, const char* fw_version, const char* fal_version);
    void close();

    // NRT_SUCCESS when initialized, else UNINITIALIZED or CLOSED (logged for `function`).
    NRT_STATUS check(const char* function) const;
    std::shared_ptr<control_client> client() const;
    session_info session() const;
    std::uint64_t generation() const;

    // The instance, from the live session or, before nrt_init, from a short
    // connection to the emulator. Nothing (logged) when it is unreachable.
    std::optional<protocol::instance_description> describe(const char* function) const;
    // Logical cores in use, or that nrt_init would take.
    std::optional<std::uint32_t> visible_count(const char* function) const;
    std::optional<std::uint32_t> total_count(const char* function) const;

    // A logical core index as this process numbers it, to the global one.
    std::optional<std::uint32_t> global_core(int vnc) const;

    // Memory on the emulator (best effort once the session is gone).
    std::uint64_t allocate(std::uint32_t global_core, protocol::memory_location where, std::uint32_t mem_type,
                           std::uint64_t size);
    void free(std::uint64_t generation, std::uint64_t allocation);

    // Device bytes this process holds per logical core (nrt_get_vnc_memory_stats).
    void account_device_bytes(std::uint64_t generation, std::uint32_t vnc, std::int64_t delta);
    std::uint64_t device_bytes(std::uint32_t vnc) const;

private:
    enum class lifecycle { start, inited, closed };
    mutable std::mutex m_mutex;
    lifecycle m_state = lifecycle::start;
    std::shared_ptr<control_client> m_client;
    session_info m_session;
    std::uint64_t m_generation = 0;
    std::map<std::uint32_t, std::uint64_t> m_device_bytes;
};

// "pid 1234 (app)" or NEURON_PROCESS_TAG: how the process is named to the emulator.
std::string process_label();

} // namespace neuron::shim
