#pragma once

#include "neuron/protocol/messages.h"

#include <cstdint>
#include <optional>
#include <string>

namespace neuron::shim {

// What the core-selection environment variables ask for (nrt-api.md §3.7).
struct core_request {
    std::optional<std::uint32_t> lnc; // NEURON_LOGICAL_NC_CONFIG (or NEURON_RT_VIRTUAL_CORE_SIZE)
    protocol::core_selection selection = protocol::core_selection::all_free;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t debug_stream_capacity = 65536; // NEURON_RT_DEBUG_STREAM_BUFFER_SIZE
};

// Reads the variables; an invalid value throws std::invalid_argument saying
// which and why. NEURON_RT_VISIBLE_CORES ("3", "3-6", "3-5,6") must name a
// contiguous increasing run and wins over NEURON_RT_NUM_CORES (0: all).
core_request read_core_request();

// The same parsing, for tests: the value of NEURON_RT_VISIBLE_CORES.
void parse_visible_cores(const std::string& text, std::uint32_t& first, std::uint32_t& count);

} // namespace neuron::shim
