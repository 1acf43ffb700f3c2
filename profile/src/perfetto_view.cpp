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

namespace neuron::profile {
namespace {

using detail::counter_point;
using detail::slice_kind;
using perfetto::trace_writer;
using perfetto::uuid;

enum class event_kind : std::uint8_t { begin, end, counter, instant };

// One event of one track, in the order the track needs them.
struct event {
    std::uint64_t ts;
    event_kind kind;
    slice_kind slice;         // begin, end: what the slice is
    std::uint32_t ref;        // begin, end: the instruction or DMA run; instant: the fault
    std::uint32_t extras = 0; // begin, end: the counter values it carries, m_extras[extras, +extra_count)
    std::uint16_t extra_count = 0;
    std::int64_t value = 0; // counter
};

struct lane {
    uuid track;
    std::uint32_t timeline; // into trace_builder::m_timelines
    std::vector<event> events;
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

    void add(const core_timeline& t) {
        m_timelines.push_back(&t);
        m_links.emplace_back();
        const auto pid = static_cast<std::int32_t>(std::uint64_t{t.device} * t.figures.cores_per_device + t.core + 1);
        const auto process = m_writer.process(pid, fmt::format("Instructions [{}]", worker_key(t)));
        m_opcodes.push_back(shown_opcodes(t));
        // The slices first: the counters' values ride on them.
        for (auto& p : m_positions) p.clear();
        add_instructions(process, t);
        add_dma(process, t);
        m_carried.clear();
        const auto semaphores = detail::semaphore_series(t);
        for (const auto& [index, name] : semaphore_tracks(t)) add_counter(process, name, semaphores.at(index));
        add_counter(process, "DMA Throughput", detail::dma_throughput_series(t));
        add_counter(process, "Pending DMA Count", detail::pending_dma_series(t));
        attach_carried();
        if (!t.faults.empty()) {
            lane l{m_writer.track(process, "Notifications"), current(), {}};
            for (std::uint32_t i = 0; i < t.faults.size(); ++i) {
                l.events.push_back({to_ns(t.faults[i].at_ps), event_kind::instant, slice_kind::instruction, i});
            }
            std::stable_sort(l.events.begin(), l.events.end(),
                             [](const event& a, const event& b) { return a.ts < b.ts; });
            m_lanes.push_back(std::move(l));
        }
        if (m_flows) detail::link_flows(t, m_next_flow, m_links.back());
    }

    std::string finish() {
        std::size_t events = 0;
        for (const auto& l : m_lanes) events += l.events.size();
        m_writer.reserve(m_writer.bytes().size() + 24 * events);
        // Every lane is in time order: merge them, a lane's events keeping
        // their order among equal times.
        using head = std::pair<std::uint64_t, std::size_t>; // ts, lane
        std::priority_queue<head, std::vector<head>, std::greater<>> heads;
        std::vector<std::size_t> next(m_lanes.size(), 0);
        for (std::size_t i = 0; i < m_lanes.size(); ++i) {
            if (!m_lanes[i].events.empty()) heads.push({m_lanes[i].events.front().ts, i});
        }
        while (!heads.empty()) {
            const auto i = heads.top().second;
            heads.pop();
            auto& l = m_lanes[i];
            // Take every event of this lane at this time before another lane's.
            const auto ts = l.events[next[i]].ts;
            while (next[i] < l.events.size() && l.events[next[i]].ts == ts) emit(l, l.events[next[i]++]);
            if (next[i] < l.events.size()) heads.push({l.events[next[i]].ts, i});
        }
        return m_writer.take();
    }

private:
    // A counter track: each value goes on the slice event that made it
    // (an extra counter value), or on the track itself when none did.
    std::uint32_t current() const { return static_cast<std::uint32_t>(m_timelines.size() - 1); }

    void add_counter(uuid process, std::string_view name, const std::vector<counter_point>& points) {
        lane l{m_writer.counter_track(process, name), current(), {}};
        for (const auto& p : points) {
            if (p.carrier == detail::no_carrier) {
                l.events.push_back({p.ts, event_kind::counter, slice_kind::instruction, 0, 0, 0, p.value});
                continue;
            }
            const auto kind = static_cast<std::size_t>(p.carrier >> 1 & 1);
            const auto at = m_positions[kind].at(static_cast<std::size_t>(p.carrier >> 2));
            m_carried.push_back({at.lane, at.event + static_cast<std::uint32_t>(p.carrier & 1), {l.track, p.value}});
        }
        m_lanes.push_back(std::move(l));
    }

    // Gives each slice event the counter values it carries, contiguous in m_extras.
    void attach_carried() {
        std::stable_sort(m_carried.begin(), m_carried.end(), [](const carried& a, const carried& b) {
            return a.lane != b.lane ? a.lane < b.lane : a.event < b.event;
        });
        for (std::size_t k = 0; k < m_carried.size();) {
            const auto lane = m_carried[k].lane;
            const auto index = m_carried[k].event;
            auto& e = m_lanes[lane].events[index];
            e.extras = static_cast<std::uint32_t>(m_extras.size());
            for (; k < m_carried.size() && m_carried[k].lane == lane && m_carried[k].event == index; ++k) {
                m_extras.push_back(m_carried[k].value);
                ++e.extra_count;
            }
        }
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
                m_lanes.push_back({m_writer.track(process, fmt::format("{} - Row {}", g.name, row)), current(), {}});
                row_lane.push_back(static_cast<std::uint32_t>(m_lanes.size() - 1));
                if (row == 0) m_lanes.back().events.reserve(2 * g.spans.size()); // most go on row 0
            }
            row_end[row] = end;
            auto& events = m_lanes[row_lane[row]].events;
            const auto ref = g.refs[i];
            if (positions.size() <= ref) positions.resize(ref + 1);
            positions[ref] = {row_lane[row], static_cast<std::uint32_t>(events.size())};
            events.push_back({start, event_kind::begin, g.kind, ref});
            events.push_back({end, event_kind::end, g.kind, ref});
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

    std::span<const perfetto::counter_value> extras(const event& e) const {
        return std::span(m_extras).subspan(e.extras, e.extra_count);
    }

    void emit(const lane& l, const event& e) {
        const auto& t = *m_timelines[l.timeline];
        const auto key = detail::slice_key(e.slice, e.ref);
        switch (e.kind) {
        case event_kind::begin: begin(l, e, flows_of(l.timeline, key, false)); return;
        case event_kind::end: m_writer.end(l.track, e.ts, flows_of(l.timeline, key, true), extras(e)); return;
        case event_kind::counter: m_writer.counter(l.track, e.ts, static_cast<double>(e.value)); return;
        case event_kind::instant: {
            const auto& f = t.faults[e.ref];
            const perfetto::annotation args[] = {{"status", std::uint64_t{f.status}},
                                                 {"dma_engine", std::uint64_t{f.dma_engine}}};
            m_writer.instant(l.track, e.ts, f.kind, args);
            return;
        }
        }
    }

    void begin(const lane& l, const event& e, std::span<const std::uint64_t> flows) {
        const auto& t = *m_timelines[l.timeline];
        if (e.slice == slice_kind::dma_run) {
            const auto& r = t.dma_runs[e.ref];
            const auto& x = t.transfers[r.transfer];
            const perfetto::annotation args[] = {{"bytes", r.bytes}};
            const auto& name =
                m_dma_names[static_cast<std::size_t>(x.from) * memory_names.size() + static_cast<std::size_t>(x.to)];
            m_writer.begin(l.track, e.ts, name, args, flows, extras(e));
            return;
        }
        const auto& r = t.instructions[e.ref];
        const auto& name = m_opcodes[l.timeline][r.opcode];
        if (r.source == none) {
            m_writer.begin(l.track, e.ts, name, {}, flows, extras(e));
        } else {
            const perfetto::annotation args[] = {{"nki_source_location", std::string_view(t.sources[r.source])}};
            m_writer.begin(l.track, e.ts, name, args, flows, extras(e));
        }
    }

    bool m_flows;
    trace_writer m_writer;
    std::vector<lane> m_lanes;
    std::vector<const core_timeline*> m_timelines;   // in add() order
    std::vector<std::vector<std::string>> m_opcodes; // per timeline
    std::vector<std::string> m_dma_names;            // from x 3 + to
    // Where each slice's begin event is, by slice_kind and ref, for the timeline being added.
    struct position {
        std::uint32_t lane = 0;
        std::uint32_t event = 0;
    };
    std::array<std::vector<position>, 2> m_positions;
    // A counter value a slice event carries, before attach_carried().
    struct carried {
        std::uint32_t lane;
        std::uint32_t event;
        perfetto::counter_value value;
    };
    std::vector<carried> m_carried;
    std::vector<perfetto::counter_value> m_extras;
    std::vector<detail::flow_links> m_links; // per timeline
    std::uint64_t m_next_flow = 1;
};

} // namespace

std::string perfetto_trace(std::span<const core_timeline> profiles, bool flows) {
    trace_builder b(flows);
    for (const auto& t : profiles) b.add(t);
    return b.finish();
}

} // namespace neuron::profile
