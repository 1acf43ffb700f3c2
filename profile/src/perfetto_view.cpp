#include "neuron/profile/perfetto_view.h"

#include "neuron/profile/naming.h"
#include "neuron/profile/perfetto_writer.h"
#include "neuron/profile/summary.h"

#include "perfetto_counters.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <queue>
#include <stdexcept>

namespace neuron::profile {
namespace {

using detail::counter_point;
using detail::slice_kind;
using perfetto::trace_writer;
using perfetto::uuid;

// A counter value a slice event carries.
struct carried_value {
    std::uint32_t event; // the lane's kth slice begins at event 2k and ends at 2k + 1
    std::uint32_t track; // a counter track
    std::int64_t value;
};

// One track's events, in the order the track needs them, kept compact: a
// slice is its index (its times are the timeline's), a counter event its
// time and value. Events are made from these as they are written.
struct lane {
    enum class kind : std::uint8_t { slices, counter, instants };
    lane(uuid track_, std::uint32_t timeline_, kind what_, slice_kind slice_ = slice_kind::instruction)
            : track(track_), timeline(timeline_), what(what_), slice(slice_) {}
    uuid track;
    std::uint32_t timeline; // into trace_builder::m_kept
    kind what;
    slice_kind slice = slice_kind::instruction;
    std::vector<std::uint32_t> refs;                            // slices; instants: the faults
    std::vector<std::pair<std::uint64_t, std::int64_t>> values; // counter: ts, value
    std::vector<carried_value> carried;                         // by event, then counter

    std::size_t events() const {
        return what == kind::slices ? 2 * refs.size() : what == kind::counter ? values.size() : refs.size();
    }
};

// What writing a timeline's events needs of it once add() is done with
// it: its slices' times and names, compact, rather than the timeline.
struct kept_timeline {
    struct instruction {
        std::uint64_t start; // ns
        std::uint64_t end;
        std::uint32_t opcode;
        std::uint32_t source;
    };
    struct dma_run {
        std::uint64_t start;
        std::uint64_t end;
        std::uint64_t bytes;
        std::uint32_t name; // into m_dma_names
    };
    std::vector<instruction> instructions;
    std::vector<dma_run> dma_runs;
    std::vector<std::string> sources;
    std::vector<fault_record> faults;
};

// Slices of one kind of work (an engine, a queue) spread over rows so that
// none overlaps another on its row: each goes on the first row free by its
// start.
struct row_group {
    std::string name;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans; // start, end ns
    std::vector<std::uint32_t> refs;
    slice_kind kind;
};

class trace_builder {
public:
    explicit trace_builder(bool flows) : m_flows(flows) {
        for (const auto from : memory_names) {
            for (const auto to : memory_names) m_dma_names.push_back(fmt::format("{}->{}", from, to));
        }
    }

    // Everything the trace needs of `t` is taken now: the caller may drop it.
    void add(const core_timeline& t) {
        keep(t);
        m_links.emplace_back();
        const auto pid = static_cast<std::int32_t>(std::uint64_t{t.device} * t.figures.cores_per_device + t.core + 1);
        const auto process = m_writer.process(pid, fmt::format("Instructions [{}]", worker_key(t)));
        m_opcodes.push_back(shown_opcodes(t));
        // The slices first: the counters' values ride on them.
        for (auto& p : m_positions) p.clear();
        const auto first_lane = m_lanes.size();
        add_instructions(process, t);
        add_dma(process, t);
        const auto slice_lanes = m_lanes.size();
        const auto semaphores = detail::semaphore_series(t);
        const auto throughput = detail::dma_throughput_series(t);
        const auto pending = detail::pending_dma_series(t);
        std::vector<std::pair<std::string, const std::vector<counter_point>*>> counters;
        for (const auto& [index, name] : semaphore_tracks(t)) counters.emplace_back(name, &semaphores.at(index));
        counters.emplace_back("DMA Throughput", &throughput);
        counters.emplace_back("Pending DMA Count", &pending);
        const auto throttling = detail::throttle_series(t);
        if (!t.throttled.empty()) counters.emplace_back("Throttling", &throttling);
        // Each slice lane's room for the values it carries, exactly.
        std::vector<std::size_t> carried(slice_lanes - first_lane);
        for (const auto& [name, points] : counters) {
            for (const auto& p : *points) {
                if (p.carrier != detail::no_carrier) ++carried[carrier_of(p).lane - first_lane];
            }
        }
        for (std::size_t i = first_lane; i < slice_lanes; ++i) m_lanes[i].carried.reserve(carried[i - first_lane]);
        for (const auto& [name, points] : counters) add_counter(process, name, *points);
        // In event order, the counters' order kept among the values of one event.
        for (std::size_t i = first_lane; i < slice_lanes; ++i) {
            auto& values = m_lanes[i].carried;
            std::stable_sort(values.begin(), values.end(),
                             [](const carried_value& a, const carried_value& b) { return a.event < b.event; });
        }
        if (!t.faults.empty()) {
            lane l{m_writer.track(process, "Notifications"), current(), lane::kind::instants};
            for (std::uint32_t i = 0; i < t.faults.size(); ++i) l.refs.push_back(i);
            std::stable_sort(l.refs.begin(), l.refs.end(), [&](std::uint32_t a, std::uint32_t b) {
                return to_ns(t.faults[a].at_ps) < to_ns(t.faults[b].at_ps);
            });
            m_lanes.push_back(std::move(l));
        }
        if (m_flows) detail::link_flows(t, m_next_flow, m_links.back());
    }

    void finish(const output& out) {
        // Every lane is in time order: merge them, a lane's events keeping
        // their order among equal times.
        using head = std::pair<std::uint64_t, std::size_t>; // ts, lane
        std::priority_queue<head, std::vector<head>, std::greater<>> heads;
        std::vector<cursor> next(m_lanes.size());
        for (std::size_t i = 0; i < m_lanes.size(); ++i) {
            if (m_lanes[i].events() > 0) heads.push({ts_of(m_lanes[i], 0), i});
        }
        while (!heads.empty()) {
            const auto i = heads.top().second;
            heads.pop();
            const auto& l = m_lanes[i];
            auto& at = next[i];
            const auto events = l.events();
            // Take every event of this lane at this time before another lane's.
            const auto ts = ts_of(l, at.event);
            while (at.event < events && ts_of(l, at.event) == ts) emit(l, at, ts);
            if (at.event < events) heads.push({ts_of(l, at.event), i});
            // Written in pieces of whole packets: every piece continues the Trace.
            if (m_writer.bytes().size() >= (std::size_t{1} << 20)) out(m_writer.take());
        }
        if (!m_writer.bytes().empty()) out(m_writer.take());
    }

private:
    std::uint32_t current() const { return static_cast<std::uint32_t>(m_kept.size() - 1); }

    void keep(const core_timeline& t) {
        auto& k = m_kept.emplace_back();
        k.instructions.reserve(t.instructions.size());
        for (const auto& r : t.instructions) {
            k.instructions.push_back({to_ns(r.start_ps), to_ns(r.end_ps), r.opcode, r.source});
        }
        k.dma_runs.reserve(t.dma_runs.size());
        for (const auto& r : t.dma_runs) {
            const auto& x = t.transfers[r.transfer];
            const auto name = static_cast<std::uint32_t>(static_cast<std::size_t>(x.from) * memory_names.size() +
                                                         static_cast<std::size_t>(x.to));
            k.dma_runs.push_back({to_ns(r.start_ps), to_ns(r.end_ps), r.bytes, name});
        }
        k.sources = t.sources;
        k.faults = t.faults;
    }

    struct position {
        std::uint32_t lane = 0;
        std::uint32_t event = 0;
    };
    // The slice event that carries a counter point.
    position carrier_of(const counter_point& p) const {
        const auto kind = static_cast<std::size_t>(p.carrier >> 1 & 1);
        const auto at = m_positions[kind].at(static_cast<std::size_t>(p.carrier >> 2));
        return {at.lane, at.event + static_cast<std::uint32_t>(p.carrier & 1)};
    }

    // A counter track: each value goes on the slice event that made it
    // (an extra counter value), or on the track itself when none did.
    void add_counter(uuid process, std::string_view name, const std::vector<counter_point>& points) {
        lane l{m_writer.counter_track(process, name), current(), lane::kind::counter};
        if (l.track > UINT32_MAX) throw std::length_error("more tracks than a trace holds");
        const auto own = std::count_if(points.begin(), points.end(),
                                       [](const counter_point& p) { return p.carrier == detail::no_carrier; });
        l.values.reserve(static_cast<std::size_t>(own));
        for (const auto& p : points) {
            if (p.carrier == detail::no_carrier) {
                l.values.emplace_back(p.ts, p.value);
                continue;
            }
            const auto at = carrier_of(p);
            m_lanes[at.lane].carried.push_back({at.event, static_cast<std::uint32_t>(l.track), p.value});
        }
        m_lanes.push_back(std::move(l));
    }

    void add_rows(uuid process, row_group& g) {
        std::vector<std::uint32_t> order(g.spans.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        const auto by_start = [&](std::uint32_t a, std::uint32_t b) { return g.spans[a].first < g.spans[b].first; };
        if (!std::is_sorted(order.begin(), order.end(), by_start))
            std::stable_sort(order.begin(), order.end(), by_start);
        auto& positions = m_positions[static_cast<std::size_t>(g.kind)];
        std::vector<std::uint64_t> row_end;
        std::vector<std::uint32_t> row_lane;
        for (const auto i : order) {
            const auto start = g.spans[i].first;
            const auto end = g.spans[i].second;
            const auto row = static_cast<std::size_t>(
                std::find_if(row_end.begin(), row_end.end(), [start](std::uint64_t e) { return e <= start; }) -
                row_end.begin());
            if (row == row_end.size()) {
                row_end.push_back(0);
                m_lanes.emplace_back(m_writer.track(process, fmt::format("{} - Row {}", g.name, row)), current(),
                                     lane::kind::slices, g.kind);
                row_lane.push_back(static_cast<std::uint32_t>(m_lanes.size() - 1));
                if (row == 0) m_lanes.back().refs.reserve(g.spans.size()); // most go on row 0
            }
            row_end[row] = end;
            auto& refs = m_lanes[row_lane[row]].refs;
            const auto ref = g.refs[i];
            if (positions.size() <= ref) positions.resize(ref + 1);
            positions[ref] = {row_lane[row], static_cast<std::uint32_t>(2 * refs.size())};
            refs.push_back(ref);
        }
    }

    // One group per engine, and TensorMatrix for the matmuls, in the order
    // of their names.
    void add_instructions(uuid process, const core_timeline& t) {
        constexpr std::size_t matmuls = engine_count;
        std::array<row_group, engine_count + 1> groups;
        std::array<std::size_t, engine_count + 1> sizes{};
        std::vector<bool> matmul(t.opcodes.size());
        for (std::size_t o = 0; o < t.opcodes.size(); ++o) matmul[o] = t.opcodes[o] == "nc_matmul";
        const auto group_of = [&](const instruction_record& r) { return matmul[r.opcode] ? matmuls : r.engine; };
        for (const auto& r : t.instructions) ++sizes[group_of(r)];
        for (std::size_t k = 0; k < groups.size(); ++k) {
            groups[k].spans.reserve(sizes[k]);
            groups[k].refs.reserve(sizes[k]);
        }
        for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
            const auto& r = t.instructions[i];
            auto& g = groups[group_of(r)];
            if (g.name.empty()) g.name = fmt::format("{} Engine", label_of(t, r));
            g.kind = slice_kind::instruction;
            g.spans.push_back({to_ns(r.start_ps), to_ns(r.end_ps)});
            g.refs.push_back(i);
        }
        std::sort(groups.begin(), groups.end(), [](const row_group& a, const row_group& b) { return a.name < b.name; });
        for (auto& g : groups) {
            if (!g.spans.empty()) add_rows(process, g);
        }
    }

    void add_dma(uuid process, const core_timeline& t) {
        std::map<std::string, row_group> groups; // by queue
        for (std::uint32_t i = 0; i < t.dma_runs.size(); ++i) {
            const auto& r = t.dma_runs[i];
            auto& g = groups[queue_of(t.transfers[r.transfer])];
            g.kind = slice_kind::dma_run;
            g.spans.push_back({to_ns(r.start_ps), to_ns(r.end_ps)});
            g.refs.push_back(i);
        }
        for (auto& [queue, g] : groups) {
            g.name = queue;
            add_rows(process, g);
        }
    }

    std::span<const std::uint64_t> flows_of(std::uint32_t timeline, std::uint64_t key, bool end) const {
        if (!m_flows) return {};
        const auto& links = m_links[timeline];
        const auto& map = end ? links.ends : links.starts;
        const auto it = map.find(key);
        return it == map.end() ? std::span<const std::uint64_t>() : std::span(it->second);
    }

    // Where a lane's writing is: its next event, and its next carried values.
    struct cursor {
        std::size_t event = 0;
        std::size_t carried = 0;
    };

    std::uint64_t ts_of(const lane& l, std::size_t event) const {
        const auto& t = m_kept[l.timeline];
        switch (l.what) {
        case lane::kind::counter: return l.values[event].first;
        case lane::kind::instants: return to_ns(t.faults[l.refs[event]].at_ps);
        case lane::kind::slices: break;
        }
        const auto ref = l.refs[event / 2];
        const bool end = event % 2 == 1;
        if (l.slice == slice_kind::dma_run) return end ? t.dma_runs[ref].end : t.dma_runs[ref].start;
        return end ? t.instructions[ref].end : t.instructions[ref].start;
    }

    // The counter values the cursor's event carries; it moves past them.
    std::span<const perfetto::counter_value> extras(const lane& l, cursor& at) {
        m_extras.clear();
        for (; at.carried < l.carried.size() && l.carried[at.carried].event == at.event; ++at.carried) {
            m_extras.push_back({l.carried[at.carried].track, l.carried[at.carried].value});
        }
        return m_extras;
    }

    // Writes the cursor's event, at `ts`, and moves past it.
    void emit(const lane& l, cursor& at, std::uint64_t ts) {
        const auto& t = m_kept[l.timeline];
        const auto event = at.event;
        switch (l.what) {
        case lane::kind::counter: m_writer.counter(l.track, ts, static_cast<double>(l.values[event].second)); break;
        case lane::kind::instants: {
            const auto& f = t.faults[l.refs[event]];
            const perfetto::annotation args[] = {{"status", std::uint64_t{f.status}},
                                                 {"dma_engine", std::uint64_t{f.dma_engine}}};
            m_writer.instant(l.track, ts, f.kind, args);
            break;
        }
        case lane::kind::slices: {
            const auto ref = l.refs[event / 2];
            const auto key = detail::slice_key(l.slice, ref);
            if (event % 2 == 0) {
                begin(l, ref, ts, flows_of(l.timeline, key, false), extras(l, at));
            } else {
                m_writer.end(l.track, ts, flows_of(l.timeline, key, true), extras(l, at));
            }
            break;
        }
        }
        ++at.event;
    }

    void begin(const lane& l, std::uint32_t ref, std::uint64_t ts, std::span<const std::uint64_t> flows,
               std::span<const perfetto::counter_value> extras) {
        const auto& t = m_kept[l.timeline];
        if (l.slice == slice_kind::dma_run) {
            const auto& r = t.dma_runs[ref];
            const perfetto::annotation args[] = {{"bytes", r.bytes}};
            m_writer.begin(l.track, ts, m_dma_names[r.name], args, flows, extras);
            return;
        }
        const auto& r = t.instructions[ref];
        const auto& name = m_opcodes[l.timeline][r.opcode];
        if (r.source == none) {
            m_writer.begin(l.track, ts, name, {}, flows, extras);
        } else {
            const perfetto::annotation args[] = {{"nki_source_location", std::string_view(t.sources[r.source])}};
            m_writer.begin(l.track, ts, name, args, flows, extras);
        }
    }

    bool m_flows;
    trace_writer m_writer;
    std::vector<lane> m_lanes;
    std::vector<kept_timeline> m_kept;               // in add() order
    std::vector<std::vector<std::string>> m_opcodes; // per timeline
    std::vector<std::string> m_dma_names;            // from x 3 + to
    // Where each slice's begin event is, by slice_kind and ref, for the timeline being added.
    std::array<std::vector<position>, 2> m_positions;
    std::vector<perfetto::counter_value> m_extras; // the event being written carries these
    std::vector<detail::flow_links> m_links;       // per timeline
    std::uint64_t m_next_flow = 1;
};

} // namespace

void perfetto_trace(const timeline_source& profiles, bool flows, const output& out) {
    trace_builder b(flows);
    profiles.each([&](const core_timeline& t) { b.add(t); });
    b.finish(out);
}

std::string perfetto_trace(std::span<const core_timeline> profiles, bool flows) {
    return whole_output([&](const output& out) { perfetto_trace(timeline_span(profiles), flows, out); });
}

} // namespace neuron::profile
