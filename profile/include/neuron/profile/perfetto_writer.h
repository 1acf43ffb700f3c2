#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

// A writer of Perfetto's native protobuf trace (.pftrace), limited to what a
// profile needs: process, slice and counter tracks; slices, instants, counter
// values and flows (engines.md D.2). One packet sequence, names interned,
// timestamps delta-encoded against a sequence-scoped incremental clock.
namespace neuron::profile::perfetto {

using uuid = std::uint64_t;

// TrackEvent.Type
enum event_type : int { slice_begin = 1, slice_end = 2, instant_event = 3, counter_event = 4 };

// A counter's value carried by a slice event (TrackEvent's extra counters):
// cheaper than a counter event of its own at the same time.
struct counter_value {
    uuid track; // a counter track
    std::int64_t value;
};

struct annotation {
    std::string_view name;
    std::variant<std::string_view, std::int64_t, std::uint64_t, double> value;
};

class trace_writer {
public:
    // Writes the packet that clears incremental state and sets up the clock.
    trace_writer();

    // Tracks: the descriptor is written now, so create tracks before their
    // events. uuids count up from 1 (0 is Perfetto's implicit global track).
    uuid process(std::int32_t pid, std::string_view name);
    // parent: a uuid this writer returned, or 0 for a top-level track.
    uuid track(uuid parent, std::string_view name);
    uuid counter_track(uuid parent, std::string_view name);

    // Events, every one (track, ts, ...). ts is in ns and never decreases
    // across calls: std::logic_error otherwise. An unknown track, a track of
    // the wrong kind or an end with no open slice is std::invalid_argument.
    // Nothing is written when a call throws.
    // `counters`: values of counter tracks at ts.
    void begin(uuid track, std::uint64_t ts, std::string_view name, std::span<const annotation> args = {},
               std::span<const std::uint64_t> flows = {}, std::span<const counter_value> counters = {});
    // Closes the innermost open slice on the track; terminating_flows end
    // flows at that slice.
    void end(uuid track, std::uint64_t ts, std::span<const std::uint64_t> terminating_flows = {},
             std::span<const counter_value> counters = {});
    void instant(uuid track, std::uint64_t ts, std::string_view name, std::span<const annotation> args = {});
    // Integral values in [0, 2^56) are written as int64, all else as double.
    void counter(uuid track, std::uint64_t ts, double value);

    // The trace so far: a whole Trace message after every call.
    const std::string& bytes() const { return m_bytes; }
    void reserve(std::size_t bytes) { m_bytes.reserve(bytes); }
    // The trace, moved out: the writer is left empty.
    std::string take() { return std::move(m_bytes); }

private:
    enum class track_kind : std::uint8_t { process, slice, counter };
    struct track_state {
        track_kind kind;
        std::uint32_t open = 0; // slices begun and not yet ended
    };
    struct string_hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    using intern_table = std::unordered_map<std::string, std::uint64_t, string_hash, std::equal_to<>>;

    uuid add_track(track_kind kind, uuid parent, std::int32_t pid, std::string_view name);
    track_state& event_track(uuid track, bool counter);
    void check_time(std::uint64_t ts) const;
    std::uint64_t intern(intern_table& table, std::uint32_t interned_field, std::string_view text);
    void put_annotations(std::span<const annotation> args);
    void put_counters(std::span<const counter_value> counters);
    void put_event_packet(std::uint64_t ts);

    std::string m_bytes;
    std::vector<track_state> m_tracks; // indexed by uuid - 1
    std::uint64_t m_last_ts = 0;
    intern_table m_event_names;
    intern_table m_annotation_names;
    intern_table m_annotation_strings;
    // Scratch buffers, reused so that steady-state events do not allocate.
    std::string m_event;
    std::string m_interned;
    std::string m_annotation;
    std::string m_packet;
};

} // namespace neuron::profile::perfetto
