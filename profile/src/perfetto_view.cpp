#include "neuron/profile/perfetto_view.h"

#include "neuron/profile/naming.h"
#include "neuron/profile/perfetto_writer.h"
#include "neuron/profile/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <unordered_map>

namespace neuron::profile {
namespace {

using perfetto::trace_writer;
using perfetto::uuid;

enum class event_kind : std::uint8_t { begin, end, counter, instant };
enum class slice_kind : std::uint8_t { instruction, dma_run };

// One event of one track, in the order the track needs them.
struct event {
    std::uint64_t ts;
    event_kind kind;
    slice_kind slice; // begin, end: what the slice is
    std::uint32_t ref; // begin, end: the instruction or DMA run; instant: the fault
    double value = 0;  // counter
};

struct lane {
    uuid track;
    const core_timeline* timeline;
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

void add_rows(trace_writer& w, uuid process, const core_timeline& t, row_group& g, std::vector<lane>& lanes) {
    std::vector<std::size_t> order(g.spans.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return g.spans[a].first < g.spans[b].first; });
    std::vector<std::uint64_t> row_end;
    std::vector<std::size_t> first_lane;
    for (const auto i : order) {
        const auto [start, end] = g.spans[i];
        auto row = std::find_if(row_end.begin(), row_end.end(), [start](std::uint64_t e) { return e <= start; }) - row_end.begin();
        if (static_cast<std::size_t>(row) == row_end.size()) {
            row_end.push_back(0);
            lanes.push_back({w.track(process, fmt::format("{} - Row {}", g.name, row)), &t, {}});
            first_lane.push_back(lanes.size() - 1);
        }
        row_end[static_cast<std::size_t>(row)] = end;
        auto& events = lanes[first_lane[static_cast<std::size_t>(row)]].events;
        events.push_back({start, event_kind::begin, g.kind, g.refs[i]});
        events.push_back({end, event_kind::end, g.kind, g.refs[i]});
    }
}

void add_counter(trace_writer& w, uuid process, const core_timeline& t, std::string_view name,
                 const std::vector<std::pair<std::uint64_t, double>>& values, std::vector<lane>& lanes) {
    lane l{w.counter_track(process, name), &t, {}};
    for (const auto& [ts, v] : values) {
        if (!l.events.empty() && l.events.back().ts == ts) {
            l.events.back().value = v; // the last change at that time stands
        } else {
            l.events.push_back({ts, event_kind::counter, slice_kind::instruction, 0, v});
        }
    }
    lanes.push_back(std::move(l));
}

// GB/s (bytes per ns) moving at each change: the runs in flight share nothing
// here, each at its own average rate.
std::vector<std::pair<std::uint64_t, double>> dma_throughput(const core_timeline& t) {
    std::map<std::uint64_t, double> change;
    std::map<std::uint64_t, int> active;
    for (const auto& r : t.dma_runs) {
        const auto start = to_ns(r.start_ps);
        const auto end = to_ns(r.end_ps);
        if (end <= start) continue;
        const double rate = static_cast<double>(r.bytes) / static_cast<double>(end - start);
        change[start] += rate;
        change[end] -= rate;
        ++active[start];
        --active[end];
    }
    std::vector<std::pair<std::uint64_t, double>> out{{to_ns(t.start_ps), 0.0}};
    double rate = 0;
    int running = 0;
    for (const auto& [ts, delta] : change) {
        rate += delta;
        running += active[ts];
        out.push_back({ts, running == 0 ? 0.0 : std::max(0.0, rate)});
    }
    return out;
}

// Transfers issued and not yet ended: a transfer ends with its last run, or
// with the execution when it never finished.
std::vector<std::pair<std::uint64_t, double>> pending_dma(const core_timeline& t) {
    std::vector<std::uint64_t> ends(t.transfers.size(), 0);
    std::vector<bool> finished(t.transfers.size(), false);
    for (const auto& r : t.dma_runs) {
        ends[r.transfer] = std::max(ends[r.transfer], r.end_ps);
        finished[r.transfer] = true;
    }
    std::map<std::uint64_t, int> change;
    for (std::size_t i = 0; i < t.transfers.size(); ++i) {
        ++change[to_ns(t.transfers[i].issued_ps)];
        --change[to_ns(finished[i] ? std::max(ends[i], t.transfers[i].issued_ps) : t.end_ps)];
    }
    std::vector<std::pair<std::uint64_t, double>> out{{to_ns(t.start_ps), 0.0}};
    int pending = 0;
    for (const auto& [ts, delta] : change) {
        pending += delta;
        out.push_back({ts, static_cast<double>(pending)});
    }
    return out;
}

// Flow ids per slice: each wait satisfied by a semaphore add links the
// instruction or DMA run that added to the one that waited.
struct flow_links {
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> starts; // producer slice key -> flows
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> ends;   // consumer slice key -> flows
};

std::uint64_t slice_key(slice_kind kind, std::uint32_t ref) { return (std::uint64_t{ref} << 1) | static_cast<std::uint64_t>(kind); }

void link_flows(const core_timeline& t, std::uint64_t& next_flow, flow_links& links) {
    // Who made each change: an instruction that signals, or a DMA run of a
    // transfer that signals, ending when the change happened.
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> producer;
    for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
        const auto& r = t.instructions[i];
        if (r.signal_semaphore != none) producer.emplace(std::pair{r.signal_semaphore, r.end_ps}, slice_key(slice_kind::instruction, i));
    }
    for (std::uint32_t i = 0; i < t.dma_runs.size(); ++i) {
        const auto& x = t.transfers[t.dma_runs[i].transfer];
        if (x.signal_semaphore != none) producer.emplace(std::pair{x.signal_semaphore, t.dma_runs[i].end_ps}, slice_key(slice_kind::dma_run, i));
    }
    std::map<std::uint32_t, std::vector<const semaphore_record*>> changes;
    for (const auto& s : t.semaphores) changes[s.index].push_back(&s);
    for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
        const auto& r = t.instructions[i];
        if (r.wait_semaphore == none) continue;
        const auto it = changes.find(r.wait_semaphore);
        if (it == changes.end()) continue;
        const auto reached = std::find_if(it->second.begin(), it->second.end(), [&](const semaphore_record* s) {
            return s->value >= r.wait_value && s->at_ps <= r.start_ps;
        });
        if (reached == it->second.end()) continue;
        const auto from = producer.find({r.wait_semaphore, (*reached)->at_ps});
        if (from == producer.end()) continue;
        const auto id = next_flow++;
        links.starts[from->second].push_back(id);
        links.ends[slice_key(slice_kind::instruction, i)].push_back(id);
    }
}

class trace_builder {
public:
    explicit trace_builder(bool flows) : m_flows(flows) {}

    void add(const core_timeline& t) {
        const auto pid = static_cast<std::int32_t>(std::uint64_t{t.device} * t.figures.cores_per_device + t.core + 1);
        const auto process = m_writer.process(pid, fmt::format("Instructions [{}]", worker_key(t)));
        m_opcodes[&t] = shown_opcodes(t);
        add_instructions(process, t);
        add_dma(process, t);
        for (const auto& [index, name] : semaphore_tracks(t)) {
            std::vector<std::pair<std::uint64_t, double>> values{{to_ns(t.start_ps), 0.0}};
            for (const auto& s : t.semaphores) {
                if (s.index == index) values.push_back({to_ns(s.at_ps), static_cast<double>(s.value)});
            }
            add_counter(m_writer, process, t, name, values, m_lanes);
        }
        add_counter(m_writer, process, t, "DMA Throughput", dma_throughput(t), m_lanes);
        add_counter(m_writer, process, t, "Pending DMA Count", pending_dma(t), m_lanes);
        if (!t.faults.empty()) {
            lane l{m_writer.track(process, "Notifications"), &t, {}};
            for (std::uint32_t i = 0; i < t.faults.size(); ++i) {
                l.events.push_back({to_ns(t.faults[i].at_ps), event_kind::instant, slice_kind::instruction, i});
            }
            std::stable_sort(l.events.begin(), l.events.end(), [](const event& a, const event& b) { return a.ts < b.ts; });
            m_lanes.push_back(std::move(l));
        }
        if (m_flows) link_flows(t, m_next_flow, m_links[&t]);
    }

    std::string finish() {
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
        return m_writer.bytes();
    }

private:
    void add_instructions(uuid process, const core_timeline& t) {
        std::map<std::string_view, row_group> groups; // by label
        for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
            const auto& r = t.instructions[i];
            auto& g = groups[label_of(t, r)];
            g.kind = slice_kind::instruction;
            g.spans.push_back({to_ns(r.start_ps), to_ns(r.end_ps)});
            g.refs.push_back(i);
        }
        for (auto& [label, g] : groups) {
            g.name = fmt::format("{} Engine", label);
            add_rows(m_writer, process, t, g, m_lanes);
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
            add_rows(m_writer, process, t, g, m_lanes);
        }
    }

    std::span<const std::uint64_t> flows_of(const std::unordered_map<std::uint64_t, std::vector<std::uint64_t>>& map,
                                            std::uint64_t key) const {
        const auto it = map.find(key);
        return it == map.end() ? std::span<const std::uint64_t>() : std::span(it->second);
    }

    void emit(const lane& l, const event& e) {
        const auto& t = *l.timeline;
        const auto key = slice_key(e.slice, e.ref);
        const flow_links* links = m_flows ? &m_links[l.timeline] : nullptr;
        switch (e.kind) {
        case event_kind::begin:
            begin(l, e, links == nullptr ? std::span<const std::uint64_t>() : flows_of(links->starts, key));
            return;
        case event_kind::end:
            m_writer.end(l.track, e.ts, links == nullptr ? std::span<const std::uint64_t>() : flows_of(links->ends, key));
            return;
        case event_kind::counter:
            m_writer.counter(l.track, e.ts, e.value);
            return;
        case event_kind::instant: {
            const auto& f = t.faults[e.ref];
            const perfetto::annotation args[] = {{"status", std::uint64_t{f.status}}, {"dma_engine", std::uint64_t{f.dma_engine}}};
            m_writer.instant(l.track, e.ts, f.kind, args);
            return;
        }
        }
    }

    void begin(const lane& l, const event& e, std::span<const std::uint64_t> flows) {
        const auto& t = *l.timeline;
        if (e.slice == slice_kind::dma_run) {
            const auto& r = t.dma_runs[e.ref];
            const auto& x = t.transfers[r.transfer];
            const perfetto::annotation args[] = {{"bytes", r.bytes}};
            m_writer.begin(l.track, e.ts,
                           fmt::format("{}->{}", memory_names[static_cast<std::size_t>(x.from)],
                                       memory_names[static_cast<std::size_t>(x.to)]),
                           args, flows);
            return;
        }
        const auto& r = t.instructions[e.ref];
        const auto& name = m_opcodes[l.timeline][r.opcode];
        if (r.source == none) {
            m_writer.begin(l.track, e.ts, name, {}, flows);
        } else {
            const perfetto::annotation args[] = {{"nki_source_location", std::string_view(t.sources[r.source])}};
            m_writer.begin(l.track, e.ts, name, args, flows);
        }
    }

    bool m_flows;
    trace_writer m_writer;
    std::vector<lane> m_lanes;
    std::unordered_map<const core_timeline*, std::vector<std::string>> m_opcodes;
    std::unordered_map<const core_timeline*, flow_links> m_links;
    std::uint64_t m_next_flow = 1;
};

} // namespace

std::string perfetto_trace(std::span<const core_timeline> profiles, bool flows) {
    trace_builder b(flows);
    for (const auto& t : profiles) b.add(t);
    return b.finish();
}

} // namespace neuron::profile
