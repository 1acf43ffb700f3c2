#include "neuron/profile/perfetto_lint.h"

#include "perfetto_sequence.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace neuron::profile::perfetto {
namespace {

using namespace detail;

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
            add(fmt::format("packet {}: track uuid {} ({}) is already declared in packet {}", t.packet, t.id, quoted(t),
                            it->second.packet));
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
        if (full())
            ++m_dropped;
        else
            problems.push_back(std::move(message));
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

std::vector<std::string> lint(std::string_view bytes) {
    linter l;
    try {
        read_sequence(bytes, l);
    } catch (const std::runtime_error& e) {
        l.add(fmt::format("the trace does not decode: {}", e.what()));
        return std::move(l.problems);
    }
    l.finish();
    return std::move(l.problems);
}

} // namespace neuron::profile::perfetto
