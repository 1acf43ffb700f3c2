#pragma once

#include "neuron/profile/perfetto_writer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Reading a .pftrace back: the subset trace_writer emits, plus the plain
// variants Perfetto also accepts (absolute timestamps, non-interned names and
// string values). lint() checks the rules Perfetto's importer relies on
// (engines.md D.4), so that a trace that passes opens as written.
namespace neuron::profile::perfetto {

struct decoded_track {
    uuid id = 0;
    uuid parent = 0; // 0: none
    std::string name;
    bool counter = false;
    std::optional<std::int32_t> pid; // process tracks
    std::string process_name;
};

struct decoded_event {
    std::uint64_t ts = 0; // ns, trace time
    int type = 0;         // event_type
    uuid track = 0;
    std::string name;
    // Debug annotations, values as text (integers in decimal, doubles in
    // shortest round-trip form).
    std::vector<std::pair<std::string, std::string>> args;
    std::vector<std::uint64_t> flows, terminating_flows;
    double counter_value = 0;
    std::vector<std::pair<uuid, double>> extra_counters; // (counter track, value) carried by this event
};

struct decoded_trace {
    std::vector<decoded_track> tracks; // in descriptor order
    std::vector<decoded_event> events; // in file order
};

// Throws std::runtime_error("byte N: ...") on malformed input: bad wire
// format, an interned id that is not defined, a timestamp that cannot be
// converted to trace time. Bounded in time and memory by the input's size.
decoded_trace decode(std::string_view bytes);

// One line per problem, naming the packet (counted from 0) or the track;
// empty when the trace is clean.
std::vector<std::string> lint(std::string_view bytes);

} // namespace neuron::profile::perfetto
