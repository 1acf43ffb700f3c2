#include "neuron/profile/perfetto_lint.h"

#include "protobuf_wire.h"

#include "neuron/common/printable.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

namespace neuron::profile::perfetto {
namespace {

using wire::field;
using wire::reader;
using wire::wire_type;

// Names come from the file: quoted short and on one line.
std::string shown(std::string_view text) { return common::printable(text, 80); }

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

void expect(const field& f, wire_type type, std::string_view message) {
    if (f.type != type)
        reader::fail(f.offset, fmt::format("{} field {} has wire type {}, expected {}", message, f.number,
                                           static_cast<int>(f.type), static_cast<int>(type)));
}

std::uint64_t varint(const field& f, std::string_view message) {
    expect(f, wire_type::varint, message);
    return f.value;
}

std::string_view bytes(const field& f, std::string_view message) {
    expect(f, wire_type::length_delimited, message);
    return f.bytes;
}

// Repeated fixed64, unpacked (as written) or packed.
void read_fixed64s(const field& f, std::vector<std::uint64_t>& out) {
    if (f.type == wire_type::fixed64) {
        out.push_back(f.value);
        return;
    }
    expect(f, wire_type::length_delimited, "TrackEvent");
    if (f.bytes.size() % 8 != 0)
        reader::fail(f.payload_offset, fmt::format("packed field {} is {} bytes, not a multiple of 8", f.number,
                                                   f.bytes.size()));
    for (std::size_t i = 0; i < f.bytes.size(); i += 8) {
        std::uint64_t v = 0;
        for (std::size_t b = 0; b < 8; ++b) v |= std::uint64_t{static_cast<std::uint8_t>(f.bytes[i + b])} << (8 * b);
        out.push_back(v);
    }
}

raw_annotation read_annotation(const field& outer) {
    raw_annotation a;
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        switch (f.number) {
        case 1: a.name_iid = varint(f, "DebugAnnotation"); break;
        case 10: a.name = bytes(f, "DebugAnnotation"); break;
        case 2: a.kind = value_kind::boolean, a.bits = varint(f, "DebugAnnotation"); break;
        case 3: a.kind = value_kind::uint, a.bits = varint(f, "DebugAnnotation"); break;
        case 4: a.kind = value_kind::sint, a.bits = varint(f, "DebugAnnotation"); break;
        case 5:
            expect(f, wire_type::fixed64, "DebugAnnotation");
            a.kind = value_kind::real, a.bits = f.value;
            break;
        case 6: a.kind = value_kind::text, a.text = bytes(f, "DebugAnnotation"); break;
        case 7: a.kind = value_kind::pointer, a.bits = varint(f, "DebugAnnotation"); break;
        case 17: a.kind = value_kind::text_iid, a.bits = varint(f, "DebugAnnotation"); break;
        default: break;
        }
    }
    return a;
}

void read_event(const field& outer, raw_event& e) {
    e.present = true;
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        switch (f.number) {
        case 4: expect(f, wire_type::length_delimited, "TrackEvent"), e.args.push_back(read_annotation(f)); break;
        case 9: e.type = varint(f, "TrackEvent"); break;
        case 10: e.name_iid = varint(f, "TrackEvent"); break;
        case 11: e.track = varint(f, "TrackEvent"); break;
        case 23: e.name = bytes(f, "TrackEvent"); break;
        case 30: e.counter_value = static_cast<double>(static_cast<std::int64_t>(varint(f, "TrackEvent"))); break;
        case 44:
            expect(f, wire_type::fixed64, "TrackEvent");
            e.counter_value = f.as_double();
            break;
        case 47: read_fixed64s(f, e.flows); break;
        case 48: read_fixed64s(f, e.terminating); break;
        case 12: e.extra_values.push_back(varint(f, "TrackEvent")); break;
        case 31: e.extra_tracks.push_back(varint(f, "TrackEvent")); break;
        default: break;
        }
    }
}

void read_process(const field& outer, raw_descriptor& d) {
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        if (f.number == 1) // int32: the low 32 bits of the varint
            d.pid = static_cast<std::int32_t>(static_cast<std::uint32_t>(varint(f, "ProcessDescriptor")));
        if (f.number == 6) d.process_name = bytes(f, "ProcessDescriptor");
    }
}

void read_descriptor(const field& outer, raw_descriptor& d) {
    d.present = true;
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        switch (f.number) {
        case 1: d.id = varint(f, "TrackDescriptor"); break;
        case 2: d.name = bytes(f, "TrackDescriptor"); break;
        case 3: expect(f, wire_type::length_delimited, "TrackDescriptor"), read_process(f, d); break;
        case 5: d.parent = varint(f, "TrackDescriptor"); break;
        case 8: expect(f, wire_type::length_delimited, "TrackDescriptor"), d.counter = true; break;
        default: break;
        }
    }
}

void read_snapshot(const field& outer, std::vector<raw_clock>& clocks) {
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        if (f.number != 1) continue;
        expect(f, wire_type::length_delimited, "ClockSnapshot");
        raw_clock c;
        auto clock = reader::of(f);
        field g;
        while (clock.next(g)) {
            switch (g.number) {
            case 1: c.id = static_cast<std::uint32_t>(varint(g, "ClockSnapshot.Clock")); break;
            case 2: c.ts = varint(g, "ClockSnapshot.Clock"); break;
            case 3: c.incremental = varint(g, "ClockSnapshot.Clock") != 0; break;
            case 4: c.multiplier = varint(g, "ClockSnapshot.Clock"); break;
            default: break;
            }
        }
        if (c.multiplier == 0) c.multiplier = 1; // unset means ns
        clocks.push_back(c);
    }
}

void read_defaults(const field& outer, raw_packet& p) {
    p.has_defaults = true;
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        if (f.number == 58) p.default_clock = static_cast<std::uint32_t>(varint(f, "TracePacketDefaults"));
        if (f.number != 11) continue;
        expect(f, wire_type::length_delimited, "TracePacketDefaults");
        auto defaults = reader::of(f);
        field g;
        while (defaults.next(g))
            if (g.number == 11) p.default_track = varint(g, "TrackEventDefaults");
    }
}

void read_interned(const field& outer, std::vector<raw_interned>& out) {
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        table which;
        if (f.number == 2) which = event_names;
        else if (f.number == 3) which = annotation_names;
        else if (f.number == 29) which = annotation_strings;
        else continue;
        expect(f, wire_type::length_delimited, "InternedData");
        raw_interned entry{which, 0, {}};
        auto item = reader::of(f);
        field g;
        while (item.next(g)) {
            if (g.number == 1) entry.iid = varint(g, "interned entry");
            if (g.number == 2) entry.text = bytes(g, "interned entry");
        }
        out.push_back(entry);
    }
}

void read_packet(const field& outer, raw_packet& p) {
    p.clear();
    p.offset = outer.offset;
    auto in = reader::of(outer);
    field f;
    while (in.next(f)) {
        switch (f.number) {
        case 6:
            expect(f, wire_type::length_delimited, "TracePacket");
            p.has_snapshot = true;
            read_snapshot(f, p.clocks);
            break;
        case 8: p.timestamp = varint(f, "TracePacket"); break;
        case 10: p.sequence_id = static_cast<std::uint32_t>(varint(f, "TracePacket")); break;
        case 11: expect(f, wire_type::length_delimited, "TracePacket"), read_event(f, p.event); break;
        case 12: expect(f, wire_type::length_delimited, "TracePacket"), read_interned(f, p.interned); break;
        case 13: p.flags = static_cast<std::uint32_t>(varint(f, "TracePacket")); break;
        case 41: p.cleared = p.cleared || varint(f, "TracePacket") != 0; break;
        case 58: p.clock_id = static_cast<std::uint32_t>(varint(f, "TracePacket")); break;
        case 59: expect(f, wire_type::length_delimited, "TracePacket"), read_defaults(f, p); break;
        case 60: expect(f, wire_type::length_delimited, "TracePacket"), read_descriptor(f, p.descriptor); break;
        default: break;
        }
    }
    if (p.flags & 1) p.cleared = true;
}

// ---------------------------------------------------------------------------
// Sequence level: interning, defaults and clocks resolved; what is left is a
// stream of tracks and events for a visitor.

struct arg_view {
    std::string_view name;
    value_kind kind = value_kind::none;
    std::uint64_t bits = 0;
    std::string_view text;

    std::string value() const {
        switch (kind) {
        case value_kind::boolean: return bits != 0 ? "true" : "false";
        case value_kind::uint: return fmt::format("{}", bits);
        case value_kind::sint: return fmt::format("{}", static_cast<std::int64_t>(bits));
        case value_kind::real: return fmt::format("{}", std::bit_cast<double>(bits));
        case value_kind::pointer: return fmt::format("0x{:x}", bits);
        case value_kind::text:
        case value_kind::text_iid: return std::string(text);
        case value_kind::none: break;
        }
        return {};
    }
};

struct event_view {
    std::size_t packet = 0;
    bool timed = false; // false after a problem with its timestamp
    std::uint64_t ts = 0;
    std::uint64_t type = 0;
    uuid track = 0;
    std::string_view name;
    std::span<const arg_view> args;
    std::span<const std::uint64_t> flows, terminating;
    std::optional<double> counter_value;
    std::span<const std::uint64_t> extra_tracks, extra_values;
};

struct track_view {
    std::size_t packet = 0;
    uuid id = 0;
    uuid parent = 0;
    std::string_view name;
    bool counter = false;
    std::optional<std::int32_t> pid;
    std::string_view process_name;
};

class visitor {
public:
    virtual ~visitor() = default;
    virtual void track(const track_view& t) = 0;
    virtual void event(const event_view& e) = 0;
    // A fatal problem leaves the decoded data wrong (a name or time unknown);
    // the others only break a rule Perfetto's importer relies on.
    virtual void problem(std::size_t packet, std::size_t byte, bool fatal, std::string message) = 0;
};

constexpr std::uint32_t max_builtin_clock = 63;
constexpr std::uint32_t max_sequence_clock = 127;

class sequence_reader {
public:
    explicit sequence_reader(visitor& v) : m_visitor(v) {}

    // Throws std::runtime_error("byte N: ...") on malformed wire format.
    void run(std::string_view bytes) {
        reader in(bytes);
        field f;
        std::size_t index = 0;
        while (in.next(f)) {
            if (f.number != 1) continue;
            expect(f, wire_type::length_delimited, "Trace");
            read_packet(f, m_packet);
            handle(index++);
        }
    }

private:
    struct clock_state {
        bool incremental = false;
        bool has_reference = false;
        std::uint64_t multiplier = 1;
        std::uint64_t snapshot_ns = 0; // this clock's reading at the snapshot
        std::uint64_t trace_ns = 0;    // trace time at the snapshot
        std::uint64_t last_ns = 0;     // incremental clocks: the latest reading
    };
    struct sequence_state {
        std::array<std::unordered_map<std::uint64_t, std::string_view>, table_count> interned;
        std::uint32_t default_clock = 0;
        std::optional<std::uint64_t> default_track;
        std::unordered_map<std::uint32_t, clock_state> clocks; // sequence-scoped clocks 64..127
    };

    void problem(std::size_t index, bool fatal, std::string message) {
        m_visitor.problem(index, m_packet.offset, fatal, std::move(message));
    }

    void handle(std::size_t index) {
        const auto& p = m_packet;
        check_sequence(index);
        auto& state = m_sequences[p.sequence_id.value_or(0)];
        if (p.cleared) {
            for (auto& t : state.interned) t.clear();
            state.default_clock = 0;
            state.default_track.reset();
        }
        if (p.has_defaults) {
            state.default_clock = p.default_clock;
            state.default_track = p.default_track;
        }
        for (const auto& entry : p.interned) intern(index, state, entry);
        if (p.has_snapshot) {
            snapshot(index, state);
            // Perfetto reads nothing else from a clock snapshot packet.
            if (p.descriptor.present || p.event.present)
                problem(index, false, "a clock snapshot packet also carries a track descriptor or event, which "
                                      "Perfetto ignores");
            return;
        }
        std::optional<std::uint64_t> ts;
        bool delta_clock = false;
        if (p.timestamp) ts = trace_time(index, state, *p.timestamp, delta_clock);
        if (p.descriptor.present) descriptor(index);
        if (p.event.present) event(index, state, ts, delta_clock);
    }

    void check_sequence(std::size_t index) {
        const auto& p = m_packet;
        if (index == 0 && !p.cleared)
            problem(index, false, "the first packet does not set SEQ_INCREMENTAL_STATE_CLEARED in sequence_flags");
        if (!p.sequence_id) {
            problem(index, false, "no trusted_packet_sequence_id");
        } else if (!m_first_sequence) {
            m_first_sequence = {index, *p.sequence_id};
        } else if (*p.sequence_id != m_first_sequence->second) {
            problem(index, false,
                    fmt::format("trusted_packet_sequence_id {} differs from packet {}'s {}: a trace must be one "
                                "sequence",
                                *p.sequence_id, m_first_sequence->first, m_first_sequence->second));
        }
    }

    void intern(std::size_t index, sequence_state& state, const raw_interned& entry) {
        if (entry.iid == 0) {
            problem(index, false, fmt::format("defines {} iid 0, which Perfetto treats as unset",
                                              table_names[entry.which]));
            return;
        }
        auto [it, added] = state.interned[entry.which].try_emplace(entry.iid, entry.text);
        if (!added && it->second != entry.text) {
            problem(index, false, fmt::format("redefines {} iid {} as '{}' (was '{}')", table_names[entry.which],
                                              entry.iid, shown(entry.text), shown(it->second)));
            it->second = entry.text;
        }
    }

    void snapshot(std::size_t index, sequence_state& state) {
        // Builtin clocks are taken to be trace time; the first one in the
        // snapshot anchors the sequence-scoped clocks to it.
        std::optional<std::uint64_t> reference;
        for (const auto& c : m_packet.clocks)
            if (c.id >= 1 && c.id <= max_builtin_clock && !reference) reference = scaled(index, c.ts, c.multiplier);
        for (const auto& c : m_packet.clocks) {
            if (c.id <= max_builtin_clock || c.id > max_sequence_clock) continue;
            const auto ns = scaled(index, c.ts, c.multiplier);
            state.clocks[c.id] = {c.incremental, reference.has_value(), c.multiplier, ns, reference.value_or(0), ns};
        }
    }

    std::uint64_t scaled(std::size_t index, std::uint64_t value, std::uint64_t multiplier) {
        std::uint64_t ns = 0;
        if (__builtin_mul_overflow(value, multiplier, &ns))
            problem(index, true, fmt::format("timestamp {} x {} ns overflows 64 bits", value, multiplier));
        return ns;
    }

    std::optional<std::uint64_t> trace_time(std::size_t index, sequence_state& state, std::uint64_t value,
                                            bool& delta_clock) {
        const auto clock = m_packet.clock_id != 0 ? m_packet.clock_id : state.default_clock;
        if (clock <= max_builtin_clock) return value;
        const auto it = state.clocks.find(clock);
        if (it == state.clocks.end() || !it->second.has_reference) {
            problem(index, true,
                    fmt::format("timestamp on clock {}, which no clock snapshot on this sequence ties to trace time",
                                clock));
            return std::nullopt;
        }
        auto& c = it->second;
        const auto ns = scaled(index, value, c.multiplier);
        // Modular arithmetic: a "negative" delta shows up as time going back.
        if (c.incremental) {
            delta_clock = true;
            c.last_ns += ns;
            return c.trace_ns + (c.last_ns - c.snapshot_ns);
        }
        return c.trace_ns + (ns - c.snapshot_ns);
    }

    void descriptor(std::size_t index) {
        const auto& d = m_packet.descriptor;
        if (!d.id) {
            problem(index, false, "a track descriptor without a uuid");
            return;
        }
        m_visitor.track({index, *d.id, d.parent, d.name, d.counter, d.pid, d.process_name});
    }

    std::string_view lookup(std::size_t index, const sequence_state& state, table which, std::uint64_t iid) {
        const auto& t = state.interned[which];
        if (const auto it = t.find(iid); it != t.end()) return it->second;
        problem(index, true, fmt::format("{} iid {} is not defined earlier on the sequence", table_names[which], iid));
        return {};
    }

    void event(std::size_t index, const sequence_state& state, std::optional<std::uint64_t> ts, bool delta_clock) {
        const auto& e = m_packet.event;
        if (!m_packet.timestamp) problem(index, true, "a track event without a timestamp");
        bool interned = e.name_iid != 0;
        event_view v;
        v.packet = index;
        v.timed = ts.has_value();
        v.ts = ts.value_or(0);
        v.type = e.type;
        v.track = e.track ? *e.track : state.default_track.value_or(0);
        if (e.name_iid != 0) v.name = lookup(index, state, event_names, e.name_iid);
        else if (e.name) v.name = *e.name;
        m_args.clear();
        for (const auto& a : e.args) {
            arg_view arg{{}, a.kind, a.bits, a.text};
            if (a.name_iid != 0) {
                interned = true;
                arg.name = lookup(index, state, annotation_names, a.name_iid);
            } else if (a.name) {
                arg.name = *a.name;
            }
            if (a.kind == value_kind::text_iid) {
                interned = true;
                arg.text = lookup(index, state, annotation_strings, a.bits);
            }
            m_args.push_back(arg);
        }
        v.args = m_args;
        v.flows = e.flows;
        v.terminating = e.terminating;
        v.counter_value = e.counter_value;
        v.extra_tracks = e.extra_tracks;
        v.extra_values = e.extra_values;
        if (e.extra_tracks.size() != e.extra_values.size())
            problem(index, true, fmt::format("{} extra counter tracks but {} values", e.extra_tracks.size(),
                                             e.extra_values.size()));
        if ((interned || delta_clock) && (m_packet.flags & 3) == 0)
            problem(index, false, "uses interned names or a delta clock but sets neither SEQ_NEEDS_INCREMENTAL_STATE "
                                  "nor SEQ_INCREMENTAL_STATE_CLEARED");
        m_visitor.event(v);
    }

    visitor& m_visitor;
    raw_packet m_packet;
    std::vector<arg_view> m_args;
    std::unordered_map<std::uint32_t, sequence_state> m_sequences;
    std::optional<std::pair<std::size_t, std::uint32_t>> m_first_sequence; // packet, id
};

// ---------------------------------------------------------------------------
// decode(): keep everything.

class decoder final : public visitor {
public:
    decoded_trace trace;

    void track(const track_view& t) override {
        trace.tracks.push_back({t.id, t.parent, std::string(t.name), t.counter, t.pid, std::string(t.process_name)});
    }

    void event(const event_view& v) override {
        decoded_event e;
        e.ts = v.ts;
        e.type = static_cast<int>(std::min<std::uint64_t>(v.type, std::numeric_limits<int>::max()));
        e.track = v.track;
        e.name = v.name;
        e.args.reserve(v.args.size());
        for (const auto& a : v.args) e.args.emplace_back(std::string(a.name), a.value());
        e.flows.assign(v.flows.begin(), v.flows.end());
        e.terminating_flows.assign(v.terminating.begin(), v.terminating.end());
        e.counter_value = v.counter_value.value_or(0);
        for (std::size_t i = 0; i < v.extra_tracks.size(); ++i)
            e.extra_counters.emplace_back(v.extra_tracks[i], static_cast<double>(static_cast<std::int64_t>(v.extra_values[i])));
        trace.events.push_back(std::move(e));
    }

    void problem(std::size_t packet, std::size_t byte, bool fatal, std::string message) override {
        if (fatal) throw std::runtime_error(fmt::format("byte {}: packet {}: {}", byte, packet, message));
    }
};

// ---------------------------------------------------------------------------
// lint(): the rules, checked as the events stream past.

constexpr std::size_t max_problems = 1000;

const char* type_name(std::uint64_t type) {
    switch (type) {
    case slice_begin: return "SLICE_BEGIN";
    case slice_end: return "SLICE_END";
    case instant_event: return "INSTANT";
    case counter_event: return "COUNTER";
    default: return "untyped";
    }
}

class linter final : public visitor {
public:
    std::vector<std::string> problems;

    void track(const track_view& t) override {
        if (const auto it = m_tracks.find(t.id); it != m_tracks.end()) {
            add(fmt::format("packet {}: track uuid {} ({}) is already declared in packet {}", t.packet, t.id,
                            quoted(t), it->second.packet));
            return;
        }
        m_tracks.emplace(t.id, known_track{t.packet, t.parent, shown(label(t)), t.counter});
        m_order.push_back(t.id);
        if (const auto it = m_undeclared.find(t.id); it != m_undeclared.end()) {
            add(fmt::format("packet {}: an event on track {} precedes its descriptor (packet {})", it->second,
                            describe(t.id), t.packet));
            m_undeclared.erase(it);
        }
    }

    void event(const event_view& e) override {
        check_time(e);
        for (const auto extra : e.extra_tracks) {
            const auto t = m_tracks.find(extra);
            if (t == m_tracks.end())
                add(fmt::format("packet {}: an extra counter value for track uuid {}, which no earlier descriptor "
                                "declares",
                                e.packet, extra));
            else if (!t->second.counter)
                add(fmt::format("packet {}: an extra counter value for slice track {}", e.packet, describe(extra)));
        }
        const auto it = m_tracks.find(e.track);
        if (e.track != 0 && it == m_tracks.end()) m_undeclared.try_emplace(e.track, e.packet);
        const bool counter_track = it != m_tracks.end() && it->second.counter;
        switch (e.type) {
        case counter_event:
            if (it != m_tracks.end() && !counter_track)
                add(fmt::format("packet {}: COUNTER event on slice track {}", e.packet, describe(e.track)));
            if (!e.counter_value)
                add(fmt::format("packet {}: COUNTER event on track {} has no counter value", e.packet,
                                describe(e.track)));
            return;
        case slice_begin:
        case slice_end:
        case instant_event:
            if (counter_track)
                add(fmt::format("packet {}: {} event on counter track {}", e.packet, type_name(e.type),
                                describe(e.track)));
            break;
        default:
            add(fmt::format("packet {}: track event type {} is not SLICE_BEGIN, SLICE_END, INSTANT or COUNTER",
                            e.packet, e.type));
            return;
        }
        if (const auto slice = nest(e)) flows(e, *slice);
    }

    void problem(std::size_t packet, std::size_t, bool, std::string message) override {
        add(fmt::format("packet {}: {}", packet, message));
    }

    // What is only wrong once the trace has ended.
    void finish() {
        std::vector<std::pair<std::size_t, uuid>> undeclared;
        for (const auto& [id, packet] : m_undeclared) undeclared.emplace_back(packet, id);
        std::sort(undeclared.begin(), undeclared.end());
        for (const auto& [packet, id] : undeclared)
            add(fmt::format("packet {}: an event on track uuid {}, which no descriptor declares", packet, id));
        check_parents();
        for (const auto id : m_order) {
            const auto it = m_open.find(id);
            if (it == m_open.end()) continue;
            for (const auto& s : it->second)
                add(fmt::format("track {}: slice '{}' begun in packet {} is never ended", describe(id), shown(s.name),
                                s.packet));
        }
        std::vector<std::pair<std::uint64_t, flow_state>> left(m_flows.begin(), m_flows.end());
        std::sort(left.begin(), left.end(),
                  [](const auto& a, const auto& b) { return a.second.packet < b.second.packet; });
        for (const auto& [id, f] : left)
            if (f.slices < 2) one_ended(id, f);
        if (m_dropped > 0) problems.push_back(fmt::format("... and {} more problems", m_dropped));
    }

    void add(std::string message) {
        if (full()) ++m_dropped;
        else problems.push_back(std::move(message));
    }
    bool full() const { return problems.size() >= max_problems; }

private:
    struct known_track {
        std::size_t packet;
        uuid parent;
        std::string label;
        bool counter;
    };
    struct open_slice {
        std::uint64_t slice;
        std::string_view name;
        std::size_t packet;
    };
    struct flow_state {
        std::size_t packet; // where it began
        std::uint64_t last_slice;
        std::size_t slices;
    };

    static std::string_view label(const track_view& t) { return t.name.empty() ? t.process_name : t.name; }
    static std::string quoted(const track_view& t) { return fmt::format("'{}'", shown(label(t))); }

    std::string describe(uuid id) const {
        if (const auto it = m_tracks.find(id); it != m_tracks.end())
            return fmt::format("'{}' (uuid {})", it->second.label, id);
        return fmt::format("uuid {}", id);
    }

    void check_time(const event_view& e) {
        if (!e.timed) return;
        if (e.ts > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            add(fmt::format("packet {}: timestamp {} ns is beyond Perfetto's int64 range", e.packet, e.ts));
        if (m_last && e.ts < m_last->second)
            add(fmt::format("packet {}: timestamp {} ns goes back before {} ns of packet {}", e.packet, e.ts,
                            m_last->second, m_last->first));
        m_last = {e.packet, e.ts};
    }

    // Pairs ends with begins; returns the slice the event belongs to.
    std::optional<std::uint64_t> nest(const event_view& e) {
        if (e.type == instant_event) return m_next_slice++;
        if (e.type == slice_begin) {
            m_open[e.track].push_back({m_next_slice, e.name, e.packet});
            return m_next_slice++;
        }
        const auto it = m_open.find(e.track);
        if (it == m_open.end()) {
            // open_elsewhere() walks the tracks: not for each of a million bad ends.
            if (full())
                ++m_dropped;
            else
                add(fmt::format("packet {}: SLICE_END on track {} has no open slice to end{}", e.packet,
                                describe(e.track), open_elsewhere()));
            return std::nullopt;
        }
        const auto slice = it->second.back().slice;
        it->second.pop_back();
        if (it->second.empty()) m_open.erase(it);
        return slice;
    }

    std::string open_elsewhere() const {
        std::string where;
        std::size_t named = 0;
        for (const auto id : m_order) {
            if (!m_open.contains(id)) continue;
            if (++named > 3) return fmt::format(" (slices are open on {}, ...)", where);
            where += fmt::format("{}{}", where.empty() ? "" : ", ", describe(id));
        }
        return where.empty() ? "" : fmt::format(" (slices are open on {})", where);
    }

    // Perfetto's rule: a flow id begins at the first event carrying it, steps
    // through later ones and ends where it is terminating.
    void flows(const event_view& e, std::uint64_t slice) {
        for (const auto id : e.flows) {
            auto [it, added] = m_flows.try_emplace(id, flow_state{e.packet, slice, 1});
            if (!added && it->second.last_slice != slice) {
                it->second.last_slice = slice;
                ++it->second.slices;
            }
        }
        for (const auto id : e.terminating) {
            const auto it = m_flows.find(id);
            if (it == m_flows.end()) {
                add(fmt::format("packet {}: terminates flow {}, which no earlier event began", e.packet, id));
                continue;
            }
            if (it->second.last_slice != slice) ++it->second.slices;
            if (it->second.slices < 2) one_ended(id, it->second);
            m_flows.erase(it);
        }
    }

    void one_ended(std::uint64_t id, const flow_state& f) {
        add(fmt::format("packet {}: flow {} touches only one slice; a flow needs events on two", f.packet, id));
    }

    // Parents declared, and no track its own ancestor: each track is walked
    // once, so a long chain of tracks costs linear time.
    void check_parents() {
        for (const auto id : m_order) {
            const auto& t = m_tracks.at(id);
            if (t.parent != 0 && !m_tracks.contains(t.parent))
                add(fmt::format("packet {}: track {} has parent uuid {}, which no descriptor declares", t.packet,
                                describe(id), t.parent));
        }
        enum class mark : std::uint8_t { walking, done };
        std::unordered_map<uuid, mark> marks;
        std::vector<uuid> path;
        for (const auto id : m_order) {
            path.clear();
            uuid at = id;
            while (at != 0 && !marks.contains(at)) {
                marks[at] = mark::walking;
                path.push_back(at);
                const auto it = m_tracks.find(at);
                at = it == m_tracks.end() ? 0 : it->second.parent;
            }
            if (at != 0 && marks[at] == mark::walking)
                add(fmt::format("packet {}: track {} is its own ancestor", m_tracks.at(at).packet, describe(at)));
            for (const auto p : path) marks[p] = mark::done;
        }
    }

    std::unordered_map<uuid, known_track> m_tracks;
    std::vector<uuid> m_order;
    std::unordered_map<uuid, std::size_t> m_undeclared; // uuid -> first packet using it
    std::unordered_map<uuid, std::vector<open_slice>> m_open;
    std::unordered_map<std::uint64_t, flow_state> m_flows;
    std::optional<std::pair<std::size_t, std::uint64_t>> m_last; // packet, ts
    std::uint64_t m_next_slice = 0;
    std::size_t m_dropped = 0;
};

} // namespace

decoded_trace decode(std::string_view bytes) {
    decoder d;
    sequence_reader(d).run(bytes);
    return std::move(d.trace);
}

std::vector<std::string> lint(std::string_view bytes) {
    linter l;
    try {
        sequence_reader(l).run(bytes);
    } catch (const std::runtime_error& e) {
        l.add(fmt::format("the trace does not decode: {}", e.what()));
        return std::move(l.problems);
    }
    l.finish();
    return std::move(l.problems);
}

} // namespace neuron::profile::perfetto
