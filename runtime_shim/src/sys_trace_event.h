#pragma once

// One recorded system-trace event, and the fetch JSON of a list of them.

#include "sys_trace.h"

namespace neuron::shim::sys_trace {

enum class phase : std::uint8_t { start, stop, instant };

struct event {
    std::uint64_t id = 0;
    std::uint64_t tracking_id = 0;
    std::uint64_t timestamp_ns = 0;
    std::uint64_t thread_id = 0;
    std::uint64_t seq = 0; // 0: none
    event_type type{};
    phase when{};
    std::uint32_t nc_idx = 0;
    std::optional<std::uint32_t> status;
    std::optional<std::uint32_t> model_id;
    std::optional<std::uint64_t> exec_id;
    std::optional<std::uint64_t> nc_timestamp_ns;
    std::optional<std::uint64_t> cpu_timestamp_ns;
    std::string name; // the tensor's or model's, "" for none
};

// {"data_version":2,"events":[...]} in the order given.
std::string to_json(const std::vector<event>& events);

} // namespace neuron::shim::sys_trace
