#include "neuron/model/runtime/collectives.h"

#include "neuron/common/printable.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/spec/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>

namespace neuron::model {
namespace {

// Link hops between devices over connected_devices; devices it does not join
// reach each other through the host: one hop.
std::vector<std::vector<unsigned>> device_hops(const instance_type& instance) {
    const auto n = instance.device_count;
    std::vector<std::vector<unsigned>> hops(n, std::vector<unsigned>(n, 1));
    for (std::uint32_t from = 0; from < n; ++from) {
        std::vector<int> seen(n, -1);
        std::queue<std::uint32_t> next;
        seen[from] = 0;
        next.push(from);
        while (!next.empty()) {
            const auto d = next.front();
            next.pop();
            for (const auto peer : connected_devices(instance.kind, n, d)) {
                if (peer < n && seen[peer] < 0) {
                    seen[peer] = seen[d] + 1;
                    next.push(peer);
                }
            }
        }
        for (std::uint32_t to = 0; to < n; ++to) {
            if (seen[to] >= 0) hops[from][to] = static_cast<unsigned>(seen[to]);
        }
    }
    return hops;
}

// Bytes each step of the ring moves from a rank to the next.
bool same_shape(collective_kind kind, std::size_t op_bytes, std::size_t bytes) {
    return kind == collective_kind::send_receive || op_bytes == bytes;
}

sc_core::sc_time nanoseconds(double ns) { return sc_core::sc_time(ns, sc_core::SC_NS); }

} // namespace

std::string_view collective_name(collective_kind kind) {
    switch (kind) {
    case collective_kind::barrier: return "barrier";
    case collective_kind::all_gather: return "all-gather";
    case collective_kind::send_receive: return "send/receive";
    }
    return "collective";
}

collectives::collectives(sc_core::sc_module_name name, const instance_type& instance)
        : sc_module(name), m_instance(instance), m_hops(device_hops(instance)) {
    SC_METHOD(settle);
    sensitive << m_due;
    dont_initialize();
}

unsigned collectives::hops(std::uint32_t from_device, std::uint32_t to_device) const {
    return m_hops.at(from_device).at(to_device);
}

sc_core::sc_time collectives::cost(collective_kind kind, const std::vector<physical_core>& cores,
                                   std::size_t bytes) const {
    const auto n = cores.size();
    if (n <= 1) return sc_core::SC_ZERO_TIME;
    const auto& spec = m_instance.spec();
    const double latency = static_cast<double>(collective_step_latency.count());
    const double chunk = kind == collective_kind::barrier ? 0.0 : static_cast<double>(bytes);
    const auto edges = kind == collective_kind::send_receive ? std::size_t{1} : n;
    double step = 0;
    for (std::size_t i = 0; i < edges; ++i) {
        const auto& from = cores[i];
        const auto& to = cores[(i + 1) % n];
        const double link =
            from.device == to.device
                ? latency + chunk / static_cast<double>(std::max<std::uint64_t>(spec.memory_bytes_per_ns, 1))
                : latency * hops(from.device, to.device) +
                      chunk / static_cast<double>(std::max<std::uint64_t>(spec.dma_bytes_per_ns, 1));
        step = std::max(step, link);
    }
    // A ring all-gather takes n-1 steps; a barrier is a tiny all-reduce: 2(n-1);
    // a send one step over one edge.
    const auto steps = kind == collective_kind::barrier ? 2 * (n - 1) : kind == collective_kind::all_gather ? n - 1 : 1;
    return nanoseconds(std::ceil(step * static_cast<double>(steps))); // whole nanoseconds
}

void collectives::join(collective_arrival arrival, collective_done done) {
    if (arrival.ranks == 0 || arrival.rank >= arrival.ranks) {
        throw invalid_argument_error(fmt::format("rank {} is not one of a group of {}", arrival.rank, arrival.ranks));
    }
    if (arrival.ranks > m_instance.total_cores()) {
        throw invalid_argument_error(fmt::format("a group of {} ranks cannot meet on {} with {} NeuronCores",
                                                 arrival.ranks, m_instance.name, m_instance.total_cores()));
    }
    if (waiting_of(arrival.owner) >= max_waiting_per_owner) {
        throw resource_busy_error(
            fmt::format("this process has {} collectives waiting already", max_waiting_per_owner));
    }
    const bool transfer = arrival.kind == collective_kind::send_receive;
    if (transfer) {
        if (arrival.ranks != 2) throw invalid_argument_error("a send/receive has 2 ranks");
        if (arrival.offset > arrival.transfer_bytes ||
            arrival.contribution.size() > arrival.transfer_bytes - arrival.offset) {
            throw invalid_argument_error(fmt::format("a piece of {} bytes at {} ends past its transfer of {} bytes",
                                                     arrival.contribution.size(), arrival.offset,
                                                     arrival.transfer_bytes));
        }
        if (arrival.rank == 1 && !arrival.contribution.empty()) {
            throw invalid_argument_error("a receive sends nothing");
        }
    } else {
        claim(arrival, false);
    }
    // SystemC's time ends some 213 days in: a longer wait is as good as forever.
    arrival.timeout = std::min<std::chrono::nanoseconds>(arrival.timeout, std::chrono::hours(24 * 100));
    const auto now = sc_core::sc_time_stamp();
    const auto key = key_of(arrival);
    auto& ops = m_groups[key];
    auto it =
        std::find_if(ops.begin(), ops.end(), [&](const operation& op) { return !op.arrived.contains(arrival.rank); });
    if (it == ops.end()) {
        ops.push_back({arrival.kind,
                       arrival.ranks,
                       arrival.contribution.size(),
                       {},
                       now + nanoseconds(static_cast<double>(arrival.timeout.count())),
                       {},
                       {}});
        it = std::prev(ops.end());
    }
    auto& op = *it;
    if (op.kind != arrival.kind || op.ranks != arrival.ranks ||
        !same_shape(op.kind, op.bytes, arrival.contribution.size())) {
        throw invalid_argument_error(fmt::format(
            "rank {} of '{}' joins a {} of {} ranks with {} bytes; the others started a {} of {} ranks with {} bytes",
            arrival.rank, common::printable(key.second), collective_name(arrival.kind), arrival.ranks,
            arrival.contribution.size(), collective_name(op.kind), op.ranks, op.bytes));
    }
    if (!transfer) claim(arrival, true);
    op.bytes = std::max(op.bytes, arrival.contribution.size());
    op.deadline = std::min(op.deadline, now + nanoseconds(static_cast<double>(arrival.timeout.count())));
    const auto rank = arrival.rank;
    op.arrived.emplace(rank, waiting_rank{std::move(arrival), std::move(done)});
    if (op.arrived.size() == op.ranks) {
        std::vector<physical_core> cores;
        for (const auto& [r, w] : op.arrived) cores.push_back(w.arrival.core);
        op.refused = transfer ? mismatch(op) : std::string();
        op.finishes = op.refused.empty() ? now + cost(op.kind, cores, op.bytes) : now; // nothing moves
        wake_at(*op.finishes);
    } else {
        wake_at(op.deadline);
    }
}

collectives::group_key collectives::key_of(const collective_arrival& arrival) {
    if (arrival.kind != collective_kind::send_receive) return {arrival.user, arrival.group};
    const auto from = arrival.rank == 0 ? arrival.logical_core : arrival.peer_core;
    const auto to = arrival.rank == 0 ? arrival.peer_core : arrival.logical_core;
    return {arrival.user, fmt::format("NeuronCore {} to {}: {}", from, to, arrival.group)};
}

std::string collectives::mismatch(const operation& op) {
    const auto& send = op.arrived.at(0).arrival;
    const auto& receive = op.arrived.at(1).arrival;
    if (send.transfer_bytes != receive.transfer_bytes) {
        return fmt::format("a send of {} bytes from NeuronCore {} met a receive of {} bytes on NeuronCore {}: the "
                           "sizes must match",
                           send.transfer_bytes, send.logical_core, receive.transfer_bytes, receive.logical_core);
    }
    if (send.offset != receive.offset) {
        return fmt::format("the send from NeuronCore {} is at byte {} of its transfer, the receive on NeuronCore {} "
                           "at byte {}",
                           send.logical_core, send.offset, receive.logical_core, receive.offset);
    }
    return {};
}

void collectives::claim(const collective_arrival& arrival, bool take) {
    const group_key key{arrival.user, arrival.group};
    const auto group = m_ranks.find(key);
    if (group != m_ranks.end()) {
        const auto holder = group->second.find(arrival.rank);
        if (holder != group->second.end() && holder->second != arrival.owner) {
            throw invalid_argument_error(
                fmt::format("rank {} of '{}' belongs to another process, which joined it first: a rank is its "
                            "process's until that process closes the runtime",
                            arrival.rank, common::printable(arrival.group)));
        }
    }
    const bool holds_one =
        group != m_ranks.end() && std::any_of(group->second.begin(), group->second.end(),
                                              [&](const auto& r) { return r.second == arrival.owner; });
    const auto held = m_groups_of.find(arrival.owner);
    if (!holds_one && held != m_groups_of.end() && held->second >= max_groups_per_owner) {
        throw resource_busy_error(
            fmt::format("this process holds ranks in {} collective groups already", max_groups_per_owner));
    }
    if (!take) return;
    if (!holds_one) ++m_groups_of[arrival.owner];
    m_ranks[key].emplace(arrival.rank, arrival.owner);
}

std::size_t collectives::waiting_of(owner_id owner) const {
    std::size_t n = 0;
    for (const auto& [group, ops] : m_groups) {
        for (const auto& op : ops) {
            for (const auto& [rank, w] : op.arrived) n += w.arrival.owner == owner ? 1 : 0;
        }
    }
    return n;
}

void collectives::forget(owner_id owner) {
    for (auto& [group, ops] : m_groups) {
        for (auto& op : ops) {
            for (auto it = op.arrived.begin(); it != op.arrived.end();) {
                if (it->second.arrival.owner != owner) {
                    ++it;
                } else {
                    // Its process is told (if it is still there to hear); the
                    // others keep waiting, or get what is already on its way.
                    if (it->second.done) it->second.done({nrt_status::closed, "the runtime session closed", {}});
                    if (op.finishes) {
                        it->second.done = nullptr;
                        ++it;
                    } else {
                        it = op.arrived.erase(it);
                    }
                }
            }
        }
        std::erase_if(ops, [](const operation& op) { return op.arrived.empty(); });
    }
    std::erase_if(m_groups, [](const auto& g) { return g.second.empty(); });
    for (auto& [key, ranks] : m_ranks) std::erase_if(ranks, [&](const auto& r) { return r.second == owner; });
    std::erase_if(m_ranks, [](const auto& g) { return g.second.empty(); });
    m_groups_of.erase(owner);
}

void collectives::finish(operation& op, std::uint32_t status, const std::string& message) {
    const bool refused = !op.refused.empty();
    collective_outcome outcome{refused ? nrt_status::invalid : status, refused ? op.refused : message, {}};
    if (outcome.status == nrt_status::success && op.kind != collective_kind::barrier) {
        outcome.gathered.reserve(op.bytes * op.ranks);
        for (const auto& [rank, w] : op.arrived) {
            outcome.gathered.insert(outcome.gathered.end(), w.arrival.contribution.begin(),
                                    w.arrival.contribution.end());
        }
    }
    for (const auto& [rank, w] : op.arrived) {
        if (w.done) w.done(outcome);
    }
}

void collectives::settle() {
    const auto now = sc_core::sc_time_stamp();
    std::optional<sc_core::sc_time> next;
    for (auto& [group, ops] : m_groups) {
        for (auto it = ops.begin(); it != ops.end();) {
            if (it->finishes && *it->finishes <= now) {
                finish(*it, nrt_status::success, {});
            } else if (!it->finishes && it->deadline <= now) {
                finish(*it, nrt_status::exec_hw_err_collectives,
                       fmt::format("{} of {} ranks of '{}' arrived before the timeout", it->arrived.size(), it->ranks,
                                   common::printable(group.second)));
            } else {
                const auto due = it->finishes ? *it->finishes : it->deadline;
                next = next ? std::min(*next, due) : due;
                ++it;
                continue;
            }
            it = ops.erase(it);
        }
    }
    std::erase_if(m_groups, [](const auto& g) { return g.second.empty(); });
    if (next) wake_at(*next);
}

void collectives::wake_at(const sc_core::sc_time& when) {
    const auto now = sc_core::sc_time_stamp();
    m_due.notify(when > now ? when - now : sc_core::SC_ZERO_TIME); // an earlier pending wake-up stays
}

} // namespace neuron::model
