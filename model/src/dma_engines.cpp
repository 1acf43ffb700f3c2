#include "neuron/model/dma_engines.h"

#include "neuron/model/engine_costs.h"
#include "neuron/model/errors.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace neuron::model {
namespace {

std::uint64_t now_ps() { return static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()); }

constexpr std::uint32_t max_mask_bits = 32;

std::uint32_t low_bits(std::uint32_t n) { return n >= max_mask_bits ? ~0u : (1u << n) - 1; }

// Calls f(i) for each bit i set in `mask`, lowest first.
template <typename F>
void each_bit(std::uint32_t mask, F f) {
    while (mask != 0) {
        f(static_cast<std::uint32_t>(std::countr_zero(mask)));
        mask &= mask - 1;
    }
}

// Descriptors of slice s when `partitions` are shared by `slices`.
std::uint32_t descriptors_of(const dma_transfer& t, std::uint32_t s) {
    return t.partitions / t.dma_engines + (s < t.partitions % t.dma_engines ? 1 : 0);
}

} // namespace

dma_engines::dma_engines(sc_core::sc_module_name name, std::uint32_t engines, std::uint32_t queues,
                         std::uint64_t bytes_per_ns, memory_bandwidth& memory, semaphore_bank& semaphores)
    : sc_module(name), m_queue_count(queues), m_peak(static_cast<double>(bytes_per_ns) / 1000.0), m_memory(memory),
      m_semaphores(semaphores), m_engines(engines), m_runs(engines) {
    if (engines == 0 || engines > max_mask_bits || queues == 0 || queues > max_mask_bits) {
        throw invalid_argument_error("a core has 1 to 32 DMA engines of 1 to 32 queues");
    }
    for (auto& e : m_engines) e.queues.resize(queues);
    SC_METHOD(step);
    sensitive << m_wake;
    dont_initialize();
}

std::uint32_t dma_engines::submit(const dma_transfer& t, std::uint64_t arrives_ps) {
    if (t.queue >= m_queue_count || t.dma_engines == 0) {
        throw invalid_argument_error("a DMA transfer names a queue that does not exist or no engines");
    }
    const auto later = std::upper_bound(m_arrivals.begin(), m_arrivals.end(), arrives_ps,
                                        [](std::uint64_t at, const arrival& a) { return at < a.at; });
    m_arrivals.insert(later, {arrives_ps, &t, m_next_serial++});
    arm(now_ps());
    return t.dma_engines;
}

// Woken when a transfer arrives or a run timed by the engines ends.
void dma_engines::step() {
    const auto now = now_ps();
    end_due(now);
    admit(now);
    settle(now);
    arm(now);
}

void dma_engines::memory_done(std::uint64_t token) {
    const auto r = std::find_if(m_runs.begin(), m_runs.end(), [token](const run& x) { return x.serial == token; });
    if (r == m_runs.end()) return; // stopped meanwhile
    const auto now = now_ps();
    end_run(*r, now);
    settle(now);
    arm(now);
}

// Queues the slices of every transfer that has arrived. One transfer alone
// on idle engines with nothing queued starts at once, as its slices would.
void dma_engines::admit(std::uint64_t now) {
    if (m_arrivals.empty() || m_arrivals.front().at > now) return;
    const auto engines = engine_count();
    const bool alone = m_arrivals.size() == 1 || m_arrivals[1].at > now;
    const auto& first = m_arrivals.front();
    if (alone && first.transfer->dma_engines <= engines) {
        const auto& t = *first.transfer;
        const auto spanned = low_bits(t.dma_engines);
        if ((spanned & (m_busy | m_has_queued)) == 0) {
            const auto bigger = low_bits(t.partitions % t.dma_engines); // one more descriptor each
            if (bigger != 0) start_run(t, bigger, descriptors_of(t, 0), now);
            if ((spanned & ~bigger) != 0) start_run(t, spanned & ~bigger, descriptors_of(t, t.dma_engines - 1), now);
            each_bit(spanned, [&](std::uint32_t e) { m_engines[e].next_queue = (t.queue + 1) % m_queue_count; });
            m_arrivals.pop_front();
            return;
        }
    }
    while (!m_arrivals.empty() && m_arrivals.front().at <= now) {
        const auto a = m_arrivals.front();
        m_arrivals.pop_front();
        for (std::uint32_t s = 0; s < a.transfer->dma_engines; ++s) {
            const auto e = s % engines;
            m_engines[e].queues[a.transfer->queue].slices.push_back({a.transfer, a.serial, descriptors_of(*a.transfer, s)});
            m_engines[e].waiting |= 1u << a.transfer->queue;
            m_has_queued |= 1u << e;
            ++m_queued;
        }
    }
}

// Each idle engine with queued slices takes the head of its next queue in
// turn; those taking slices of one transfer and one size form one run.
void dma_engines::start_free(std::uint64_t now) {
    struct group {
        const dma_transfer* transfer;
        std::uint64_t serial;
        std::uint32_t descriptors;
        std::uint32_t engines;
    };
    std::array<group, max_mask_bits> groups;
    std::size_t count = 0;
    each_bit(m_has_queued & ~m_busy, [&](std::uint32_t e) {
        auto& engine = m_engines[e];
        const auto rotated = std::rotr(engine.waiting, static_cast<int>(engine.next_queue));
        const auto q = (engine.next_queue + static_cast<std::uint32_t>(std::countr_zero(rotated))) % m_queue_count;
        auto& from = engine.queues[q];
        const auto s = from.slices[from.head++];
        if (from.head == from.slices.size()) {
            from.slices.clear();
            from.head = 0;
            engine.waiting &= ~(1u << q);
            if (engine.waiting == 0) m_has_queued &= ~(1u << e);
        }
        --m_queued;
        engine.next_queue = (q + 1) % m_queue_count;
        const auto same = std::find_if(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(count),
                                       [&s](const group& g) { return g.serial == s.serial && g.descriptors == s.descriptors; });
        if (same != groups.begin() + static_cast<std::ptrdiff_t>(count)) {
            same->engines |= 1u << e;
        } else {
            groups[count++] = {s.transfer, s.serial, s.descriptors, 1u << e};
        }
    });
    for (std::size_t g = 0; g < count; ++g) {
        start_run(*groups[g].transfer, groups[g].engines, groups[g].descriptors, now);
    }
}

void dma_engines::start_run(const dma_transfer& t, std::uint32_t engines, std::uint32_t descriptors,
                            std::uint64_t now) {
    auto& r = *std::find_if(m_runs.begin(), m_runs.end(), [](const run& x) { return x.serial == 0; });
    r.serial = m_next_serial++;
    r.transfer = &t;
    r.engines = engines;
    r.slices = static_cast<std::uint32_t>(std::popcount(engines));
    r.descriptors = descriptors;
    r.work = static_cast<double>(descriptors) * static_cast<double>(t.bytes_per_partition + costs::dma_descriptor_bytes);
    r.by_memory = t.touches_hbm && r.work > 0; // an empty slice moves nothing
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
    for (auto& r : m_runs) {
        if (r.serial != 0 && !r.by_memory && r.end <= now) {
            end_run(r, now);
            any = true;
        }
    }
    return any;
}

void dma_engines::end_run(run& r, std::uint64_t now) {
    const auto bytes = static_cast<std::uint64_t>(r.descriptors) * r.transfer->bytes_per_partition;
    const bool hbm = r.transfer->touches_hbm;
    each_bit(r.engines, [&](std::uint32_t e) {
        m_engines[e].busy_ps += now - r.started;
        m_engines[e].bytes += bytes;
        if (hbm) m_engines[e].hbm_bytes += bytes;
    });
    m_busy &= ~r.engines;
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

// The next arrival or end of a run the engines time.
void dma_engines::arm(std::uint64_t now) {
    auto next = m_arrivals.empty() ? UINT64_MAX : m_arrivals.front().at;
    for (const auto& r : m_runs) {
        if (r.serial != 0 && !r.by_memory) next = std::min(next, r.end);
    }
    if (next != UINT64_MAX) m_wake.notify(sc_core::sc_time::from_value(next > now ? next - now : 0));
}

void dma_engines::stop() {
    for (auto& r : m_runs) {
        if (r.serial == 0) continue;
        const auto bytes = data_moved(r);
        const auto busy = elapsed(r);
        each_bit(r.engines, [&](std::uint32_t e) {
            m_engines[e].busy_ps += busy;
            m_engines[e].bytes += bytes;
            if (r.transfer->touches_hbm) m_engines[e].hbm_bytes += bytes;
        });
        if (r.by_memory) m_memory.cancel(*this, r.serial, r.mark, r.work);
        r.serial = 0;
    }
    for (auto& e : m_engines) {
        for (auto& q : e.queues) {
            q.slices.clear();
            q.head = 0;
        }
        e.waiting = 0;
    }
    m_busy = m_has_queued = 0;
    m_queued = 0;
    m_arrivals.clear();
    m_wake.cancel();
}

std::optional<std::uint32_t> dma_engines::moving_device_memory() const {
    std::uint32_t engines = 0;
    for (const auto& r : m_runs) {
        if (r.serial != 0 && r.transfer->touches_hbm) engines |= r.engines;
    }
    if (engines == 0) return std::nullopt;
    return static_cast<std::uint32_t>(std::countr_zero(engines));
}

const dma_engines::run* dma_engines::run_on(std::uint32_t engine) const {
    for (const auto& r : m_runs) {
        if (r.serial != 0 && (r.engines >> engine & 1u) != 0) return &r;
    }
    return nullptr;
}

std::uint64_t dma_engines::elapsed(const run& r) const {
    const auto now = now_ps();
    return (r.by_memory ? now : std::min(now, r.end)) - r.started;
}

double dma_engines::work_done(const run& r) const {
    if (r.by_memory) return std::min(r.work, m_memory.moved_since(r.mark));
    if (r.end == r.started) return r.work;
    return r.work * static_cast<double>(elapsed(r)) / static_cast<double>(r.end - r.started);
}

// Data bytes one slice of `r` has moved by now.
std::uint64_t dma_engines::data_moved(const run& r) const {
    if (r.work <= 0) return 0;
    const auto data = static_cast<double>(r.descriptors) * static_cast<double>(r.transfer->bytes_per_partition);
    return static_cast<std::uint64_t>(data * std::clamp(work_done(r) / r.work, 0.0, 1.0));
}

std::uint64_t dma_engines::busy_ps(std::uint32_t engine) const {
    const auto* r = run_on(engine);
    return m_engines.at(engine).busy_ps + (r != nullptr ? elapsed(*r) : 0);
}

std::uint64_t dma_engines::bytes_moved(std::uint32_t engine) const {
    const auto* r = run_on(engine);
    return m_engines.at(engine).bytes + (r != nullptr ? data_moved(*r) : 0);
}

std::uint64_t dma_engines::hbm_bytes_moved(std::uint32_t engine) const {
    const auto* r = run_on(engine);
    return m_engines.at(engine).hbm_bytes + (r != nullptr && r->transfer->touches_hbm ? data_moved(*r) : 0);
}

dma_totals dma_engines::totals() const {
    dma_totals t;
    for (std::uint32_t e = 0; e < engine_count(); ++e) {
        t.busy_ps += busy_ps(e);
        t.bytes += bytes_moved(e);
        t.hbm_bytes += hbm_bytes_moved(e);
    }
    return t;
}

} // namespace neuron::model
