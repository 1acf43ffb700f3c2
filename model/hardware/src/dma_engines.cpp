#include "neuron/model/hardware/dma_engines.h"

#include "mask_bits.h"

#include "neuron/model/hardware/kernel_time.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace neuron::model {
namespace {

// Descriptors of slice s when `partitions` are shared by `slices`.
std::uint32_t descriptors_of(const dma_transfer& t, std::uint32_t s) {
    return t.partitions / t.dma_engines + (s < t.partitions % t.dma_engines ? 1 : 0);
}

} // namespace

dma_engines::dma_engines(sc_core::sc_module_name name, std::uint32_t engines, std::uint32_t queues, double bytes_per_ns,
                         dma_overheads overheads, memory_bandwidth& memory, semaphore_bank& semaphores)
        : sc_module(name), m_queue_count(queues), m_peak(bytes_per_ns / 1000.0),
          m_descriptor_overhead_bytes(static_cast<double>(overheads.descriptor_bytes)),
          m_stagger_bytes(static_cast<double>(overheads.engine_stagger_ns) * bytes_per_ns), m_memory(memory),
          m_semaphores(semaphores), m_engines(engines), m_queues(queues), m_runs(engines) {
    if (engines == 0 || engines > max_mask_bits || queues == 0 || queues > max_mask_bits) {
        throw invalid_argument_error("a core has 1 to 32 DMA engines of 1 to 32 queues");
    }
    m_queues.front().turn = low_bits(engines);
    SC_METHOD(step);
    sensitive << m_wake;
    dont_initialize();
}

std::uint32_t dma_engines::submit(const dma_transfer& t, std::uint64_t arrives_ps, engine_kind issuer) {
    if (t.queue >= m_queue_count || t.dma_engines == 0) {
        throw invalid_argument_error("a DMA transfer names a queue that does not exist or no engines");
    }
    const auto later = std::upper_bound(m_arrivals.begin(), m_arrivals.end(), std::pair{arrives_ps, issuer},
                                        [](const std::pair<std::uint64_t, engine_kind>& key, const arrival& a) {
                                            return key < std::pair{a.at, a.issuer};
                                        });
    m_last_serial = m_next_serial++;
    m_arrivals.insert(later, {arrives_ps, issuer, &t, m_last_serial});
    arm(now_ps());
    return t.dma_engines;
}

// Woken when a transfer arrives or a run timed by the engines ends.
void dma_engines::step() {
    m_wake_at = UINT64_MAX; // the wake that ran
    const auto now = now_ps();
    end_due(now);
    admit(now);
    settle(now);
    arm(now);
}

void dma_engines::memory_done(std::uint64_t token) {
    run* done = nullptr;
    each_bit(m_run_slots, [&](std::uint32_t i) {
        if (m_runs[i].serial == token) done = &m_runs[i];
    });
    if (done == nullptr) return; // stopped meanwhile
    const auto now = now_ps();
    end_run(*done, now);
    admit(now); // what arrived while its engines were busy (arm())
    settle(now);
    arm(now);
}

// Queues the slices of every transfer that has arrived. One transfer
// arriving now alone on idle engines with nothing queued starts at once, as
// its slices would; one that arrived earlier found its engines busy.
void dma_engines::admit(std::uint64_t now) {
    if (m_arrivals.empty() || m_arrivals.front().at > now) return;
    const auto engines = engine_count();
    const bool alone = m_arrivals.size() == 1 || m_arrivals[1].at > now;
    const auto& first = m_arrivals.front();
    if (alone && first.at == now && first.transfer->dma_engines <= engines) {
        const auto& t = *first.transfer;
        const auto spanned = low_bits(t.dma_engines);
        if ((spanned & (m_busy | m_has_queued)) == 0) {
            const auto bigger = low_bits(t.partitions % t.dma_engines); // one more descriptor each
            const auto staggered = t.dma_engines - 1;                   // engines reached after the first
            if (bigger != 0) start_run(t, first.serial, bigger, descriptors_of(t, 0), staggered, now);
            if ((spanned & ~bigger) != 0) {
                start_run(t, first.serial, spanned & ~bigger, descriptors_of(t, t.dma_engines - 1), staggered, now);
            }
            each_bit(m_turn_queues, [&](std::uint32_t q) { pass_turn(spanned, q, t.queue); });
            m_arrivals.pop_front();
            return;
        }
    }
    while (!m_arrivals.empty() && m_arrivals.front().at <= now) {
        const auto a = m_arrivals.front();
        m_arrivals.pop_front();
        const auto& t = *a.transfer;
        auto& q = m_queues[t.queue];
        const auto base = t.partitions / t.dma_engines;
        const auto bigger = t.partitions % t.dma_engines; // the first slices take one descriptor more
        for (std::uint32_t slice = 0; slice < t.dma_engines; slice += engines) {
            const auto spanned = low_bits(std::min(engines, t.dma_engines - slice));
            const auto more = bigger > slice ? low_bits(bigger - slice) & spanned : 0u;
            q.rounds.push_back({&t, a.serial, spanned, more, base});
            q.waiting |= spanned;
            m_has_queued |= spanned;
        }
        m_waiting_queues |= 1u << t.queue;
    }
}

struct dma_engines::run_groups {
    struct group {
        const dma_transfer* transfer;
        std::uint64_t serial;
        std::uint32_t descriptors;
        std::uint32_t engines;
    };
    std::array<group, max_mask_bits> items;
    std::size_t count = 0;

    void add(const round& r, std::uint32_t descriptors, std::uint32_t engines) {
        if (engines == 0) return;
        const auto end = items.begin() + static_cast<std::ptrdiff_t>(count);
        const auto same = std::find_if(
            items.begin(), end, [&](const group& g) { return g.serial == r.serial && g.descriptors == descriptors; });
        if (same != end) {
            same->engines |= engines;
        } else {
            items[count++] = {r.transfer, r.serial, descriptors, engines};
        }
    }
};

// Each idle engine with queued slices takes the head of its next queue in
// turn; those taking slices of one transfer and one size form one run. The
// engines whose turn starts at the same queue choose together, a bit each.
void dma_engines::start_free(std::uint64_t now) {
    run_groups groups;
    auto free = m_has_queued & ~m_busy;
    if (free == 0) return;
    const auto all_queues = low_bits(m_queue_count);
    each_bit(m_turn_queues, [&](std::uint32_t start) {
        auto choosing = m_queues[start].turn & free;
        if (choosing == 0) return;
        free &= ~choosing;
        // Bit i: queue start + i (modulo the count) has slices.
        const auto ahead =
            start == 0 ? m_waiting_queues
                       : ((m_waiting_queues >> start) | (m_waiting_queues << (m_queue_count - start))) & all_queues;
        each_bit(ahead, [&](std::uint32_t i) {
            const auto q = (start + i) % m_queue_count;
            const auto takers = choosing & m_queues[q].waiting;
            if (takers == 0) return;
            choosing &= ~takers;
            take(q, takers, groups);
            pass_turn(takers, start, q);
        });
    });
    if (groups.count == 0) return;
    auto* const first = groups.items.begin();
    auto* const last = first + groups.count;
    std::sort(first, last,
              [](const auto& a, const auto& b) { return std::countr_zero(a.engines) < std::countr_zero(b.engines); });
    for (auto* g = first; g != last; ++g) start_run(*g->transfer, g->serial, g->engines, g->descriptors, 0, now);
}

// `takers` (idle, their turn at queue q, each with a slice in it) take
// their next slice of queue q.
void dma_engines::take(std::uint32_t q, std::uint32_t takers, run_groups& groups) {
    auto& from = m_queues[q];
    auto candidates = takers;
    for (auto k = from.head; k < from.rounds.size() && candidates != 0; ++k) {
        auto& r = from.rounds[k];
        const auto got = r.pending & candidates;
        candidates &= ~r.pending; // this round is the head for those it is pending for
        if (got == 0) continue;
        r.pending &= ~got;
        groups.add(r, r.descriptors + 1, got & r.bigger);
        groups.add(r, r.descriptors, got & ~r.bigger);
    }
    while (from.head < from.rounds.size() && from.rounds[from.head].pending == 0) ++from.head;
    if (from.head == from.rounds.size()) {
        from.rounds.clear();
        from.head = 0;
    }
    std::uint32_t still = 0; // takers with another slice in the queue
    for (auto k = from.head; k < from.rounds.size() && still != takers; ++k) still |= from.rounds[k].pending & takers;
    from.waiting = (from.waiting & ~takers) | still;
    if (from.waiting == 0) m_waiting_queues &= ~(1u << q);
    if ((takers & ~still) != 0) {
        m_has_queued = 0;
        each_bit(m_waiting_queues, [&](std::uint32_t other) { m_has_queued |= m_queues[other].waiting; });
    }
}

// `engines`, whose turn started at queue `from`, took from queue q: their
// turn starts after it next time.
void dma_engines::pass_turn(std::uint32_t engines, std::uint32_t from, std::uint32_t q) {
    m_queues[from].turn &= ~engines;
    if (m_queues[from].turn == 0) m_turn_queues &= ~(1u << from);
    const auto next = (q + 1) % m_queue_count;
    m_queues[next].turn |= engines;
    m_turn_queues |= 1u << next;
}

void dma_engines::start_run(const dma_transfer& t, std::uint64_t serial, std::uint32_t engines,
                            std::uint32_t descriptors, std::uint32_t staggered, std::uint64_t now) {
    const auto slot = static_cast<std::uint32_t>(std::countr_zero(~m_run_slots));
    m_run_slots |= 1u << slot;
    auto& r = m_runs[slot];
    r.serial = m_next_serial++;
    r.transfer = &t;
    r.transfer_serial = serial;
    r.engines = engines;
    r.slices = static_cast<std::uint32_t>(std::popcount(engines));
    r.descriptors = descriptors;
    const auto partition_work = static_cast<double>(t.bytes_per_partition) +
                                static_cast<double>(t.descriptors_per_partition) * m_descriptor_overhead_bytes;
    r.work = static_cast<double>(descriptors) * partition_work * 100.0 / static_cast<double>(t.rate_percent);
    // Reaching the engines one after another is time at the engine's rate:
    // exact unless device memory is what limits the run.
    if (r.work > 0) r.work += static_cast<double>(staggered) * m_stagger_bytes;
    r.by_memory = t.touches_hbm() && r.work > 0; // an empty slice moves nothing
    r.started = now;
    if (r.by_memory) {
        r.mark = m_memory.start(*this, r.serial, r.work, r.slices);
    } else {
        r.end = now + static_cast<std::uint64_t>(std::ceil(r.work / m_peak));
    }
    m_busy |= engines;
    if (m_observer != nullptr) m_observer->moving(t, static_cast<std::uint32_t>(std::countr_zero(engines)));
}

bool dma_engines::end_due(std::uint64_t now) {
    bool any = false;
    each_bit(m_run_slots, [&](std::uint32_t i) {
        auto& r = m_runs[i];
        if (r.serial != 0 && !r.by_memory && r.end <= now) {
            end_run(r, now);
            any = true;
        }
    });
    return any;
}

void dma_engines::end_run(run& r, std::uint64_t now) {
    const auto bytes = static_cast<std::uint64_t>(r.descriptors) * r.transfer->bytes_per_partition;
    record(r.engines, now - r.started, bytes, r.transfer->touches_hbm());
    if (m_recorder != nullptr)
        m_recorder->run_ended(*r.transfer, r.transfer_serial, r.engines, r.started, bytes * r.slices, false);
    m_busy &= ~r.engines;
    m_run_slots &= ~(1u << static_cast<std::uint32_t>(&r - m_runs.data()));
    const auto semaphore = r.transfer->signal_semaphore;
    const auto slices = r.slices;
    r.serial = 0;
    if (semaphore != no_semaphore) m_semaphores.add(semaphore, slices);
    if (m_ended) m_ended(slices);
}

// Starts what the engines freed can take, and ends the runs that end at
// once (empty slices), until nothing changes.
void dma_engines::settle(std::uint64_t now) {
    do {
        start_free(now);
    } while (end_due(now));
}

// The next arrival or end of a run the engines time. A transfer whose
// engines are all busy now needs no wake of its own: it waits for one of
// them, whose end wakes the process (or memory_done()), and is admitted
// then, queued as it would have been when it arrived. Only the first few
// are looked at: beyond, a wake at an arrival admits them as they come,
// so that many transfers on their way cost no more than one each.
void dma_engines::arm(std::uint64_t now) {
    constexpr std::size_t looked_at_most = 4;
    auto next = UINT64_MAX;
    std::size_t looked = 0;
    for (const auto& a : m_arrivals) {
        const auto spanned = low_bits(std::min(engine_count(), a.transfer->dma_engines));
        if ((spanned & ~m_busy) != 0 || ++looked == looked_at_most) {
            next = a.at;
            break;
        }
    }
    each_bit(m_run_slots, [&](std::uint32_t i) {
        if (!m_runs[i].by_memory) next = std::min(next, m_runs[i].end);
    });
    next = std::max(next, now);
    if (next >= m_wake_at) return; // the wake set wakes it at that time or before
    m_wake_at = next;
    m_wake.notify(sc_core::sc_time::from_value(next - now));
}

void dma_engines::stop() {
    for (auto& r : m_runs) {
        if (r.serial == 0) continue;
        const auto bytes = data_moved(r);
        record(r.engines, elapsed(r), bytes, r.transfer->touches_hbm());
        if (m_recorder != nullptr)
            m_recorder->run_ended(*r.transfer, r.transfer_serial, r.engines, r.started, bytes * r.slices, true);
        if (r.by_memory) m_memory.cancel(*this, r.serial);
        r.serial = 0;
    }
    for (auto& q : m_queues) {
        q.rounds.clear();
        q.head = 0;
        q.waiting = 0; // turns stay where they are
    }
    m_busy = m_has_queued = m_run_slots = m_waiting_queues = 0;
    m_arrivals.clear();
    m_wake.cancel();
    m_wake_at = UINT64_MAX;
}

} // namespace neuron::model
