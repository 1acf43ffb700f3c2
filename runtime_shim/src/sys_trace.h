#pragma once

// The system trace (reference/nrt-api-surface.md §10): the event-type table,
// the process's one capture (a ring per NeuronCore) and the recording API the
// rest of the shim calls. Recording costs one atomic load while nothing
// captures; it is thread-safe and never throws.
//
// NeuronCore indices are the process's (the vnc of the API). An event of a
// call that names no core (a virtual tensor, a NULL handle, nrt_load with
// vnc -1) is recorded on core 0.

#include "nrt/nrt.h"

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::shim::sys_trace {

enum class event_type : std::uint8_t {
    nc_exec_running,
    cc_running,
    cc_exec_barrier,
    numerical_err,
    nrt_model_switch,
    timestamp_sync_point,
    hw_notify,
    nrt_load,
    nrt_unload,
    nrt_execute,
    nrt_tensor_read,
    nrt_tensor_write,
    nrt_tensor_copy,
    nrta_execute_schedule,
    nrta_tensor_read,
    nrta_tensor_write,
    nrta_tensor_copy,
};

enum class event_group { hardware, software };

struct event_type_info {
    event_type type;
    const char* name;
    event_group group;
};

// The one table of event types: names (§10.4), in event_type order.
inline constexpr std::array event_types{
    event_type_info{event_type::nc_exec_running, "nc_exec_running", event_group::hardware},
    event_type_info{event_type::cc_running, "cc_running", event_group::hardware},
    event_type_info{event_type::cc_exec_barrier, "cc_exec_barrier", event_group::hardware},
    event_type_info{event_type::numerical_err, "numerical_err", event_group::hardware},
    event_type_info{event_type::nrt_model_switch, "nrt_model_switch", event_group::hardware},
    event_type_info{event_type::timestamp_sync_point, "timestamp_sync_point", event_group::hardware},
    event_type_info{event_type::hw_notify, "hw_notify", event_group::hardware},
    event_type_info{event_type::nrt_load, "nrt_load", event_group::software},
    event_type_info{event_type::nrt_unload, "nrt_unload", event_group::software},
    event_type_info{event_type::nrt_execute, "nrt_execute", event_group::software},
    event_type_info{event_type::nrt_tensor_read, "nrt_tensor_read", event_group::software},
    event_type_info{event_type::nrt_tensor_write, "nrt_tensor_write", event_group::software},
    event_type_info{event_type::nrt_tensor_copy, "nrt_tensor_copy", event_group::software},
    event_type_info{event_type::nrta_execute_schedule, "nrta_execute_schedule", event_group::software},
    event_type_info{event_type::nrta_tensor_read, "nrta_tensor_read", event_group::software},
    event_type_info{event_type::nrta_tensor_write, "nrta_tensor_write", event_group::software},
    event_type_info{event_type::nrta_tensor_copy, "nrta_tensor_copy", event_group::software},
};

using type_set = std::bitset<event_types.size()>;

std::optional<event_type> event_type_named(std::string_view name);
const char* name_of(event_type type);

// The event nrt_execute and nrt_execute_repeat record (`fn` as execute_model
// gets it); nothing for other callers: the async queues record their own.
std::optional<event_type> execute_event(std::string_view fn);

// What a capture keeps of its configuration (copied when it starts).
struct capture_settings {
    static constexpr std::uint64_t default_max_events_per_nc = 1'000'000;

    std::uint64_t max_events_per_nc = default_max_events_per_nc;
    bool ncs_by_default = true; // cores not in nc_overrides
    std::map<std::uint32_t, bool> nc_overrides;
    type_set types = type_set().set();

    bool captures(std::uint32_t nc) const;
    bool captures(event_type type) const { return types.test(static_cast<std::size_t>(type)); }
};

// Who started the capture: the fetch API or inspect (they share it).
enum class capture_owner { sys_trace, inspect };
const char* starter_of(capture_owner owner); // the API function that starts it

// Starts the capture; the owner of the running one when one already runs.
std::optional<capture_owner> start(capture_owner owner, const capture_settings& settings);
// Ends the capture `owner` started and drops its events; false if it runs none.
bool stop(capture_owner owner);
std::optional<capture_owner> running();

struct fetch_filter {
    std::optional<std::uint64_t> nc_idx; // none: every core
    std::uint64_t max_events_per_nc = 0; // 0: no cap
};
// Removes the matching events (the oldest first) and returns them as the
// fetch JSON document.
std::string fetch_json(const fetch_filter& filter);

// ---- recording

// A software event pair around an API call: "start" now, "stop" when it ends,
// one tracking id. Records nothing when `type` is empty or nothing captures.
class api_event {
public:
    api_event(std::optional<event_type> type, std::int64_t nc_idx, std::string_view name = {}) noexcept;
    api_event(event_type type, const nrt_tensor_t* tensor) noexcept;              // its core and name
    api_event(std::optional<event_type> type, const nrt_model_t* model) noexcept; // its core and name
    ~api_event();
    api_event(const api_event&) = delete;
    api_event& operator=(const api_event&) = delete;

    void set_status(NRT_STATUS status) noexcept { m_status = static_cast<std::uint32_t>(status); }
    void set_seq(std::uint64_t seq) noexcept { m_seq = seq; }

private:
    event_type m_type{};
    std::uint32_t m_nc = 0;
    std::uint64_t m_tracking_id = 0; // 0: not recording
    std::uint64_t m_capture = 0;     // the capture its start went to
    std::optional<std::uint32_t> m_status;
    std::uint64_t m_seq = 0;
    std::string m_name;
};

// One execution on core `nc_idx`: an nc_exec_running start/stop pair whose
// data.nc_timestamp_ns are the device times, and a timestamp_sync_point
// (instant) pairing cpu_end_ns with device_end_ns. The pair's host
// timestamps are the device times moved onto the host clock through that
// sync point, kept within [cpu_start_ns, cpu_end_ns]. `seq` 0: none.
void record_execution(std::uint32_t nc_idx, std::uint64_t device_start_ns, std::uint64_t device_end_ns,
                      std::uint64_t cpu_start_ns, std::uint64_t cpu_end_ns, std::uint32_t model_id, NRT_STATUS status,
                      std::uint64_t seq) noexcept;

// CLOCK_REALTIME in nanoseconds: the events' host clock.
std::uint64_t host_now_ns() noexcept;

// A caller's string for a log line: bytes outside printable ASCII become '?'.
std::string printable(std::string_view text);

// ---- for the C API's name lists (event types, activity types)

// A malloc'ed array of malloc'ed copies of `names` into *out and *count
// (NRT_INVALID, logged, for NULL pointers; NRT_RESOURCE without memory).
NRT_STATUS copy_names(const char* fn, const std::vector<const char*>& names, const char*** out, std::size_t* count);
void free_names(const char** names, std::size_t count);

} // namespace neuron::shim::sys_trace
