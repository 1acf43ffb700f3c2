#include "perfetto_counters.h"

#include "neuron/profile/summary.h"

#include <algorithm>

namespace neuron::profile::detail {
namespace {

// A change to a counter at `ts`, and a slice event there that can carry it.
struct change {
    std::uint64_t ts;
    std::int64_t delta;
    std::uint64_t carrier;
};

// Sums the changes in time order into one point per time; a time whose
// changes no event carries gets a counter event.
std::vector<counter_point> accumulate(const core_timeline& t, std::vector<change> changes,
                                      std::int64_t (*shown)(std::int64_t total, std::int64_t active),
                                      std::vector<std::int64_t> actives = {}) {
    std::vector<std::size_t> order(changes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return changes[a].ts < changes[b].ts; });
    std::vector<counter_point> out;
    out.reserve(changes.size() + 1);
    const auto start = to_ns(t.start_ps);
    std::int64_t total = 0;
    std::int64_t active = 0;
    for (std::size_t k = 0; k < order.size();) {
        const auto ts = changes[order[k]].ts;
        std::uint64_t carrier = no_carrier;
        for (; k < order.size() && changes[order[k]].ts == ts; ++k) {
            const auto& c = changes[order[k]];
            total += c.delta;
            if (!actives.empty()) active += actives[order[k]];
            if (carrier == no_carrier) carrier = c.carrier;
        }
        if (out.empty() && ts != start) out.push_back({start, 0, no_carrier});
        out.push_back({ts, shown(total, active), carrier});
    }
    if (out.empty()) out.push_back({start, 0, no_carrier});
    return out;
}

struct adder_key {
    std::uint32_t semaphore;
    std::uint64_t end_ps;
    bool operator==(const adder_key&) const = default;
};
struct adder_hash {
    std::size_t operator()(const adder_key& k) const noexcept {
        return std::hash<std::uint64_t>{}(k.end_ps * 0x9E3779B97F4A7C15ull ^ k.semaphore);
    }
};

} // namespace

std::map<std::uint32_t, std::vector<counter_point>> semaphore_series(const core_timeline& t) {
    // Who adds: signalling instructions and their transfers' runs, by the
    // semaphore and the time they end.
    std::unordered_map<adder_key, std::uint64_t, adder_hash> adders;
    for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
        const auto& r = t.instructions[i];
        if (r.signal_semaphore != none)
            adders.emplace(adder_key{r.signal_semaphore, r.end_ps}, carrier_key(slice_kind::instruction, i, true));
    }
    for (std::uint32_t i = 0; i < t.dma_runs.size(); ++i) {
        const auto semaphore = t.transfers[t.dma_runs[i].transfer].signal_semaphore;
        if (semaphore != none)
            adders.emplace(adder_key{semaphore, t.dma_runs[i].end_ps}, carrier_key(slice_kind::dma_run, i, true));
    }
    std::map<std::uint32_t, std::vector<counter_point>> out;
    for (const auto& s : t.semaphores) {
        auto& points = out[s.index];
        if (points.empty()) points.push_back({to_ns(t.start_ps), 0, no_carrier});
        const auto adder = adders.find({s.index, s.at_ps});
        const auto carrier = adder == adders.end() ? no_carrier : adder->second;
        const auto ts = to_ns(s.at_ps);
        if (points.back().ts == ts) {
            points.back().value = s.value; // the last change at a time stands
            if (points.back().carrier == no_carrier) points.back().carrier = carrier;
        } else {
            points.push_back({ts, s.value, carrier});
        }
    }
    return out;
}

std::vector<counter_point> dma_throughput_series(const core_timeline& t) {
    std::vector<change> changes;
    std::vector<std::int64_t> actives;
    changes.reserve(2 * t.dma_runs.size());
    actives.reserve(2 * t.dma_runs.size());
    for (std::uint32_t i = 0; i < t.dma_runs.size(); ++i) {
        const auto& r = t.dma_runs[i];
        const auto start = to_ns(r.start_ps);
        const auto end = to_ns(r.end_ps);
        if (end <= start) continue;
        const auto mb_per_s = static_cast<std::int64_t>(r.bytes * 1000 / (end - start)); // bytes/ns = GB/s
        changes.push_back({start, mb_per_s, carrier_key(slice_kind::dma_run, i, false)});
        changes.push_back({end, -mb_per_s, carrier_key(slice_kind::dma_run, i, true)});
        actives.push_back(1);
        actives.push_back(-1);
    }
    return accumulate(
        t, std::move(changes),
        [](std::int64_t total, std::int64_t active) { return active == 0 ? 0 : std::max<std::int64_t>(0, total); },
        std::move(actives));
}

std::vector<counter_point> pending_dma_series(const core_timeline& t) {
    std::vector<std::uint32_t> issuer(t.transfers.size(), none);
    for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
        const auto x = t.instructions[i].transfer;
        if (x != none && x < issuer.size()) issuer[x] = i;
    }
    std::vector<std::uint32_t> last_run(t.transfers.size(), none);
    for (std::uint32_t i = 0; i < t.dma_runs.size(); ++i) {
        auto& last = last_run[t.dma_runs[i].transfer];
        if (last == none || t.dma_runs[i].end_ps >= t.dma_runs[last].end_ps) last = i;
    }
    std::vector<change> changes;
    changes.reserve(2 * t.transfers.size());
    for (std::uint32_t x = 0; x < t.transfers.size(); ++x) {
        const auto issued = to_ns(t.transfers[x].issued_ps);
        changes.push_back(
            {issued, 1, issuer[x] == none ? no_carrier : carrier_key(slice_kind::instruction, issuer[x], true)});
        if (last_run[x] == none) {
            changes.push_back({to_ns(t.end_ps), -1, no_carrier}); // it never moved
        } else {
            const auto& r = t.dma_runs[last_run[x]];
            changes.push_back(
                {std::max(issued, to_ns(r.end_ps)), -1, carrier_key(slice_kind::dma_run, last_run[x], true)});
        }
    }
    return accumulate(t, std::move(changes), [](std::int64_t total, std::int64_t) { return total; });
}

std::vector<counter_point> throttle_series(const core_timeline& t) {
    std::vector<counter_point> out{{to_ns(t.start_ps), 100, no_carrier}};
    out.reserve(2 * t.throttled.size() + 1);
    const auto at = [&](std::uint64_t ts, std::int64_t value) {
        if (out.back().ts == ts) {
            out.back().value = value; // a stretch that starts where one ended
        } else {
            out.push_back({ts, value, no_carrier});
        }
    };
    for (const auto& r : t.throttled) {
        const auto length = r.end_ps - r.start_ps;
        if (length == 0) continue;
        at(to_ns(r.start_ps), static_cast<std::int64_t>((r.work_ps * 100 + length / 2) / length));
        at(to_ns(r.end_ps), 100);
    }
    return out;
}

void link_flows(const core_timeline& t, std::uint64_t& next_flow, flow_links& links) {
    // Who made each change: an instruction that signals, or a DMA run of a
    // transfer that signals, ending when the change happened.
    std::unordered_map<adder_key, std::uint64_t, adder_hash> adders;
    for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
        const auto& r = t.instructions[i];
        if (r.signal_semaphore != none)
            adders.emplace(adder_key{r.signal_semaphore, r.end_ps}, slice_key(slice_kind::instruction, i));
    }
    for (std::uint32_t i = 0; i < t.dma_runs.size(); ++i) {
        const auto semaphore = t.transfers[t.dma_runs[i].transfer].signal_semaphore;
        if (semaphore != none)
            adders.emplace(adder_key{semaphore, t.dma_runs[i].end_ps}, slice_key(slice_kind::dma_run, i));
    }
    std::unordered_map<std::uint32_t, std::vector<const semaphore_record*>> changes;
    for (const auto& s : t.semaphores) changes[s.index].push_back(&s);
    for (std::uint32_t i = 0; i < t.instructions.size(); ++i) {
        const auto& r = t.instructions[i];
        if (r.wait_semaphore == none) continue;
        const auto it = changes.find(r.wait_semaphore);
        if (it == changes.end()) continue;
        // Values only grow during an execution: the first change that reached the value.
        const auto reached = std::partition_point(it->second.begin(), it->second.end(),
                                                  [&](const semaphore_record* s) { return s->value < r.wait_value; });
        if (reached == it->second.end() || (*reached)->at_ps > r.start_ps) continue;
        const auto by = adders.find({r.wait_semaphore, (*reached)->at_ps});
        if (by == adders.end()) continue;
        const auto id = next_flow++;
        links.starts[by->second].push_back(id);
        links.ends[slice_key(slice_kind::instruction, i)].push_back(id);
    }
}

} // namespace neuron::profile::detail
