#include "perfetto_sequence.h"

#include <fmt/format.h>

#include <unordered_map>

namespace neuron::profile::perfetto::detail {
namespace {

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
                problem(index, false,
                        "a clock snapshot packet also carries a track descriptor or event, which "
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
            problem(index, false,
                    fmt::format("defines {} iid 0, which Perfetto treats as unset", table_names[entry.which]));
            return;
        }
        auto [it, added] = state.interned[entry.which].try_emplace(entry.iid, entry.text);
        if (!added && it->second != entry.text) {
            problem(index, false,
                    fmt::format("redefines {} iid {} as '{}' (was '{}')", table_names[entry.which], entry.iid,
                                shown(entry.text), shown(it->second)));
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
        if (e.name_iid != 0)
            v.name = lookup(index, state, event_names, e.name_iid);
        else if (e.name)
            v.name = *e.name;
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
            problem(index, true,
                    fmt::format("{} extra counter tracks but {} values", e.extra_tracks.size(), e.extra_values.size()));
        if ((interned || delta_clock) && (m_packet.flags & 3) == 0)
            problem(index, false,
                    "uses interned names or a delta clock but sets neither SEQ_NEEDS_INCREMENTAL_STATE "
                    "nor SEQ_INCREMENTAL_STATE_CLEARED");
        m_visitor.event(v);
    }

    visitor& m_visitor;
    raw_packet m_packet;
    std::vector<arg_view> m_args;
    std::unordered_map<std::uint32_t, sequence_state> m_sequences;
    std::optional<std::pair<std::size_t, std::uint32_t>> m_first_sequence; // packet, id
};

} // namespace

void read_sequence(std::string_view bytes, visitor& v) { sequence_reader(v).run(bytes); }

} // namespace neuron::profile::perfetto::detail
