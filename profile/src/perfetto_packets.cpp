#include "perfetto_packets.h"

#include <fmt/format.h>

namespace neuron::profile::perfetto::detail {

void expect(const field& f, wire_type type, std::string_view message) {
    if (f.type != type)
        reader::fail(f.offset, fmt::format("{} field {} has wire type {}, expected {}", message, f.number,
                                           static_cast<int>(f.type), static_cast<int>(type)));
}

namespace {

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
        reader::fail(f.payload_offset,
                     fmt::format("packed field {} is {} bytes, not a multiple of 8", f.number, f.bytes.size()));
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
        if (f.number == 2)
            which = event_names;
        else if (f.number == 3)
            which = annotation_names;
        else if (f.number == 29)
            which = annotation_strings;
        else
            continue;
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

} // namespace

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

} // namespace neuron::profile::perfetto::detail
