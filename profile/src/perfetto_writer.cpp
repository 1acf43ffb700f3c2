#include "neuron/profile/perfetto_writer.h"

#include "protobuf_wire.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace neuron::profile::perfetto {
namespace {

using wire::put_bytes_field;
using wire::put_double_field;
using wire::put_fixed64_field;
using wire::put_int_field;
using wire::put_varint_field;

// The fields this writer emits, with Perfetto's numbers (protos/perfetto/trace/
// in google/perfetto; profile/perfetto_subset.proto declares exactly these):
//
//   Trace                   packet 1
//   TracePacket             clock_snapshot 6, timestamp 8, trusted_packet_sequence_id 10,
//                           track_event 11, interned_data 12, sequence_flags 13,
//                           trace_packet_defaults 59, track_descriptor 60,
//                           first_packet_on_sequence 87
//   TracePacketDefaults     timestamp_clock_id 58
//   ClockSnapshot           clocks 1, primary_trace_clock 2
//   ClockSnapshot.Clock     clock_id 1, timestamp 2, is_incremental 3
//   TrackDescriptor         uuid 1, name 2, process 3, parent_uuid 5, counter 8
//   ProcessDescriptor       pid 1, process_name 6
//   CounterDescriptor       (empty: a plain counter track)
//   TrackEvent              debug_annotations 4, type 9, name_iid 10, track_uuid 11,
//                           extra_counter_values 12, counter_value 30,
//                           extra_counter_track_uuids 31, double_counter_value 44,
//                           flow_ids 47 (fixed64), terminating_flow_ids 48 (fixed64)
//   DebugAnnotation         name_iid 1, uint_value 3, int_value 4, double_value 5,
//                           string_value_iid 17
//   InternedData            event_names 2, debug_annotation_names 3,
//                           debug_annotation_string_values 29
//   EventName, DebugAnnotationName   iid 1, name 2
//   InternedString          iid 1, str 2
namespace trace_field {
constexpr std::uint32_t packet = 1;
}
namespace packet_field {
constexpr std::uint32_t clock_snapshot = 6;
constexpr std::uint32_t timestamp = 8;
constexpr std::uint32_t sequence_id = 10;
constexpr std::uint32_t track_event = 11;
constexpr std::uint32_t interned_data = 12;
constexpr std::uint32_t sequence_flags = 13;
constexpr std::uint32_t defaults = 59;
constexpr std::uint32_t track_descriptor = 60;
constexpr std::uint32_t first_packet_on_sequence = 87;
} // namespace packet_field
namespace descriptor_field {
constexpr std::uint32_t uuid = 1;
constexpr std::uint32_t name = 2;
constexpr std::uint32_t process = 3;
constexpr std::uint32_t parent_uuid = 5;
constexpr std::uint32_t counter = 8;
constexpr std::uint32_t pid = 1;          // ProcessDescriptor
constexpr std::uint32_t process_name = 6; // ProcessDescriptor
} // namespace descriptor_field
namespace event_field {
constexpr std::uint32_t debug_annotations = 4;
constexpr std::uint32_t type = 9;
constexpr std::uint32_t name_iid = 10;
constexpr std::uint32_t track_uuid = 11;
constexpr std::uint32_t extra_counter_values = 12;
constexpr std::uint32_t counter_value = 30;
constexpr std::uint32_t extra_counter_track_uuids = 31;
constexpr std::uint32_t double_counter_value = 44;
constexpr std::uint32_t flow_ids = 47;
constexpr std::uint32_t terminating_flow_ids = 48;
} // namespace event_field
namespace annotation_field {
constexpr std::uint32_t name_iid = 1;
constexpr std::uint32_t uint_value = 3;
constexpr std::uint32_t int_value = 4;
constexpr std::uint32_t double_value = 5;
constexpr std::uint32_t string_value_iid = 17;
} // namespace annotation_field
namespace clock_field {
constexpr std::uint32_t clocks = 1;              // ClockSnapshot
constexpr std::uint32_t primary_trace_clock = 2; // ClockSnapshot
constexpr std::uint32_t clock_id = 1;
constexpr std::uint32_t timestamp = 2;
constexpr std::uint32_t is_incremental = 3;
constexpr std::uint32_t default_clock = 58; // TracePacketDefaults.timestamp_clock_id
} // namespace clock_field
namespace interned_field {
constexpr std::uint32_t event_names = 2;
constexpr std::uint32_t annotation_names = 3;
constexpr std::uint32_t annotation_strings = 29;
constexpr std::uint32_t iid = 1;
constexpr std::uint32_t text = 2; // EventName.name, DebugAnnotationName.name, InternedString.str
} // namespace interned_field

constexpr std::uint64_t sequence_id = 1;
constexpr std::uint64_t incremental_state_cleared = 1;
constexpr std::uint64_t needs_incremental_state = 2;
constexpr std::uint64_t boottime_clock = 6;
// A sequence-scoped clock (64..127) whose timestamps are deltas from the
// previous timestamp on it: a begin+end pair costs a few bytes of time
// instead of two absolute 5-byte varints.
constexpr std::uint64_t delta_clock = 64;

// Where an int64 counter_value encodes no larger than a double.
bool small_integer(double v) { return v >= 0 && v < 0x1p56 && std::floor(v) == v && !std::signbit(v); }

} // namespace

trace_writer::trace_writer() {
    // Trace time is BOOTTIME; the delta clock reads 0 when BOOTTIME does, so
    // the first event's delta is its absolute time.
    std::string clock;
    put_varint_field(clock, clock_field::clock_id, boottime_clock);
    put_varint_field(clock, clock_field::timestamp, 0);
    std::string delta;
    put_varint_field(delta, clock_field::clock_id, delta_clock);
    put_varint_field(delta, clock_field::timestamp, 0);
    put_varint_field(delta, clock_field::is_incremental, 1);
    std::string snapshot;
    put_bytes_field(snapshot, clock_field::clocks, clock);
    put_bytes_field(snapshot, clock_field::clocks, delta);
    put_varint_field(snapshot, clock_field::primary_trace_clock, boottime_clock);
    std::string defaults;
    put_varint_field(defaults, clock_field::default_clock, delta_clock);

    std::string packet;
    put_bytes_field(packet, packet_field::clock_snapshot, snapshot);
    put_varint_field(packet, packet_field::sequence_id, sequence_id);
    put_varint_field(packet, packet_field::sequence_flags, incremental_state_cleared);
    put_bytes_field(packet, packet_field::defaults, defaults);
    put_varint_field(packet, packet_field::first_packet_on_sequence, 1);
    put_bytes_field(m_bytes, trace_field::packet, packet);
}

uuid trace_writer::process(std::int32_t pid, std::string_view name) {
    return add_track(track_kind::process, 0, pid, name);
}

uuid trace_writer::track(uuid parent, std::string_view name) { return add_track(track_kind::slice, parent, 0, name); }

uuid trace_writer::counter_track(uuid parent, std::string_view name) {
    return add_track(track_kind::counter, parent, 0, name);
}

uuid trace_writer::add_track(track_kind kind, uuid parent, std::int32_t pid, std::string_view name) {
    if (parent > m_tracks.size()) throw std::invalid_argument(fmt::format("parent track {} does not exist", parent));
    const uuid id = m_tracks.size() + 1;

    std::string descriptor;
    put_varint_field(descriptor, descriptor_field::uuid, id);
    if (kind == track_kind::process) {
        std::string process;
        put_int_field(process, descriptor_field::pid, pid);
        put_bytes_field(process, descriptor_field::process_name, name);
        put_bytes_field(descriptor, descriptor_field::process, process);
    } else {
        put_bytes_field(descriptor, descriptor_field::name, name);
    }
    if (parent != 0) put_varint_field(descriptor, descriptor_field::parent_uuid, parent);
    if (kind == track_kind::counter) put_bytes_field(descriptor, descriptor_field::counter, {});

    m_packet.clear();
    put_varint_field(m_packet, packet_field::sequence_id, sequence_id);
    put_bytes_field(m_packet, packet_field::track_descriptor, descriptor);
    put_bytes_field(m_bytes, trace_field::packet, m_packet);
    m_tracks.push_back({kind});
    return id;
}

trace_writer::track_state& trace_writer::event_track(uuid track, bool counter) {
    if (track == 0 || track > m_tracks.size())
        throw std::invalid_argument(fmt::format("track {} was not created by this writer", track));
    auto& t = m_tracks[track - 1];
    if (counter != (t.kind == track_kind::counter))
        throw std::invalid_argument(fmt::format("track {} {} a counter track", track, counter ? "is not" : "is"));
    return t;
}

void trace_writer::check_time(std::uint64_t ts) const {
    if (ts < m_last_ts)
        throw std::logic_error(fmt::format("timestamp {} ns is before the previous event's {} ns", ts, m_last_ts));
}

std::uint64_t trace_writer::intern(intern_table& table, std::uint32_t interned_field, std::string_view text) {
    if (const auto it = table.find(text); it != table.end()) return it->second;
    const std::uint64_t iid = table.size() + 1;
    table.emplace(text, iid);
    std::string entry; // once per distinct string
    put_varint_field(entry, interned_field::iid, iid);
    put_bytes_field(entry, interned_field::text, text);
    put_bytes_field(m_interned, interned_field, entry);
    return iid;
}

void trace_writer::put_annotations(std::span<const annotation> args) {
    for (const auto& a : args) {
        m_annotation.clear();
        put_varint_field(m_annotation, annotation_field::name_iid,
                         intern(m_annotation_names, interned_field::annotation_names, a.name));
        if (const auto* s = std::get_if<std::string_view>(&a.value))
            put_varint_field(m_annotation, annotation_field::string_value_iid,
                             intern(m_annotation_strings, interned_field::annotation_strings, *s));
        else if (const auto* i = std::get_if<std::int64_t>(&a.value))
            put_int_field(m_annotation, annotation_field::int_value, *i);
        else if (const auto* u = std::get_if<std::uint64_t>(&a.value))
            put_varint_field(m_annotation, annotation_field::uint_value, *u);
        else
            put_double_field(m_annotation, annotation_field::double_value, std::get<double>(a.value));
        put_bytes_field(m_event, event_field::debug_annotations, m_annotation);
    }
}

void trace_writer::put_counters(std::span<const counter_value> counters) {
    for (const auto& c : counters) {
        event_track(c.track, true);
        put_varint_field(m_event, event_field::extra_counter_track_uuids, c.track);
    }
    for (const auto& c : counters) put_int_field(m_event, event_field::extra_counter_values, c.value);
}

// Wraps m_event (and m_interned) in a packet stamped ts.
void trace_writer::put_event_packet(std::uint64_t ts) {
    m_packet.clear();
    put_varint_field(m_packet, packet_field::timestamp, ts - m_last_ts);
    put_varint_field(m_packet, packet_field::sequence_id, sequence_id);
    put_bytes_field(m_packet, packet_field::track_event, m_event);
    if (!m_interned.empty()) put_bytes_field(m_packet, packet_field::interned_data, m_interned);
    // Every event depends on the sequence's state: the delta clock, and
    // usually interned names.
    put_varint_field(m_packet, packet_field::sequence_flags, needs_incremental_state);
    put_bytes_field(m_bytes, trace_field::packet, m_packet);
    m_last_ts = ts;
}

void trace_writer::begin(uuid track, std::uint64_t ts, std::string_view name, std::span<const annotation> args,
                         std::span<const std::uint64_t> flows, std::span<const counter_value> counters) {
    auto& t = event_track(track, false);
    check_time(ts);
    m_event.clear();
    m_interned.clear();
    put_varint_field(m_event, event_field::type, slice_begin);
    put_varint_field(m_event, event_field::name_iid, intern(m_event_names, interned_field::event_names, name));
    put_varint_field(m_event, event_field::track_uuid, track);
    put_annotations(args);
    for (const auto f : flows) put_fixed64_field(m_event, event_field::flow_ids, f);
    put_counters(counters);
    put_event_packet(ts);
    ++t.open;
}

void trace_writer::end(uuid track, std::uint64_t ts, std::span<const std::uint64_t> terminating_flows,
                       std::span<const counter_value> counters) {
    auto& t = event_track(track, false);
    if (t.open == 0) throw std::invalid_argument(fmt::format("track {} has no open slice to end", track));
    check_time(ts);
    m_event.clear();
    m_interned.clear();
    put_varint_field(m_event, event_field::type, slice_end);
    put_varint_field(m_event, event_field::track_uuid, track);
    for (const auto f : terminating_flows) put_fixed64_field(m_event, event_field::terminating_flow_ids, f);
    put_counters(counters);
    put_event_packet(ts);
    --t.open;
}

void trace_writer::instant(uuid track, std::uint64_t ts, std::string_view name, std::span<const annotation> args) {
    event_track(track, false);
    check_time(ts);
    m_event.clear();
    m_interned.clear();
    put_varint_field(m_event, event_field::type, instant_event);
    put_varint_field(m_event, event_field::name_iid, intern(m_event_names, interned_field::event_names, name));
    put_varint_field(m_event, event_field::track_uuid, track);
    put_annotations(args);
    put_event_packet(ts);
}

void trace_writer::counter(uuid track, std::uint64_t ts, double value) {
    event_track(track, true);
    check_time(ts);
    m_event.clear();
    m_interned.clear();
    put_varint_field(m_event, event_field::type, counter_event);
    put_varint_field(m_event, event_field::track_uuid, track);
    if (small_integer(value))
        put_varint_field(m_event, event_field::counter_value, static_cast<std::uint64_t>(value));
    else
        put_double_field(m_event, event_field::double_counter_value, value);
    put_event_packet(ts);
}

} // namespace neuron::profile::perfetto
