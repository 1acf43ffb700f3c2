#pragma once

// Reading a .pftrace, wire level: one TracePacket into views of the fields
// the reader knows (perfetto_lint.h's decode and lint build on it).

#include "protobuf_wire.h"

#include "neuron/common/printable.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::profile::perfetto::detail {

using wire::field;
using wire::reader;
using wire::wire_type;

// Names come from the file: quoted short and on one line.
inline std::string shown(std::string_view text) { return common::printable(text, 80); }

// ---------------------------------------------------------------------------
// Wire level: one TracePacket into views of the fields this reader knows.
// Besides what trace_writer writes it reads the plain variants Perfetto also
// takes: absolute timestamps, TracePacket.timestamp_clock_id (58), the
// deprecated incremental_state_cleared (41), TrackEvent.name (23),
// DebugAnnotation.name (10), bool/string/pointer values (2, 6, 7) and
// TrackEventDefaults.track_uuid (11). Anything else is skipped.

enum table : std::size_t { event_names, annotation_names, annotation_strings, table_count };
constexpr std::array<const char*, table_count> table_names{"event name", "debug annotation name",
                                                           "debug annotation string value"};

enum class value_kind : std::uint8_t { none, boolean, uint, sint, real, text, text_iid, pointer };

struct raw_annotation {
    std::uint64_t name_iid = 0;
    std::optional<std::string_view> name;
    value_kind kind = value_kind::none;
    std::uint64_t bits = 0; // the value, or its iid
    std::string_view text;
};

struct raw_event {
    bool present = false;
    std::uint64_t type = 0;
    std::optional<std::uint64_t> track;
    std::uint64_t name_iid = 0;
    std::optional<std::string_view> name;
    std::vector<raw_annotation> args;
    std::vector<std::uint64_t> flows, terminating;
    std::optional<double> counter_value;
    std::vector<std::uint64_t> extra_tracks;
    std::vector<std::uint64_t> extra_values; // int64 bits
};

struct raw_descriptor {
    bool present = false;
    std::optional<std::uint64_t> id;
    std::uint64_t parent = 0;
    std::string_view name;
    bool counter = false;
    std::optional<std::int32_t> pid;
    std::string_view process_name;
};

struct raw_clock {
    std::uint32_t id = 0;
    std::uint64_t ts = 0;
    bool incremental = false;
    std::uint64_t multiplier = 1;
};

struct raw_interned {
    table which;
    std::uint64_t iid;
    std::string_view text;
};

struct raw_packet {
    std::size_t offset = 0;
    std::optional<std::uint64_t> timestamp;
    std::uint32_t clock_id = 0;
    std::optional<std::uint32_t> sequence_id;
    std::uint32_t flags = 0;
    bool cleared = false;
    bool has_defaults = false;
    std::uint32_t default_clock = 0;
    std::optional<std::uint64_t> default_track;
    bool has_snapshot = false;
    std::vector<raw_clock> clocks;
    std::vector<raw_interned> interned;
    raw_descriptor descriptor;
    raw_event event;

    // Keeps the vectors' capacity: reading a packet allocates only when it is
    // bigger than those before it.
    void clear() {
        auto keep_clocks = std::move(clocks);
        auto keep_interned = std::move(interned);
        auto keep_args = std::move(event.args);
        auto keep_flows = std::move(event.flows);
        auto keep_terminating = std::move(event.terminating);
        auto keep_extra_tracks = std::move(event.extra_tracks);
        auto keep_extra_values = std::move(event.extra_values);
        *this = raw_packet{};
        event.extra_tracks = std::move(keep_extra_tracks);
        event.extra_values = std::move(keep_extra_values);
        event.extra_tracks.clear();
        event.extra_values.clear();
        clocks = std::move(keep_clocks);
        interned = std::move(keep_interned);
        event.args = std::move(keep_args);
        event.flows = std::move(keep_flows);
        event.terminating = std::move(keep_terminating);
        clocks.clear();
        interned.clear();
        event.args.clear();
        event.flows.clear();
        event.terminating.clear();
    }
};

// Throws (reader::fail) when `f` is not of wire type `type`.
void expect(const field& f, wire_type type, std::string_view message);
// Reads one TracePacket into `p` (reusing its vectors' capacity).
void read_packet(const field& outer, raw_packet& p);

} // namespace neuron::profile::perfetto::detail
