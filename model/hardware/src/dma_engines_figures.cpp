// What a core's DMA engines have done: busy time and bytes per engine,
// kept per run and per set of engines, computed when read.

#include "neuron/model/hardware/dma_engines.h"

#include "mask_bits.h"

#include "neuron/model/hardware/kernel_time.h"

#include <algorithm>
#include <bit>

namespace neuron::model {

// Each of `engines` was busy `busy_ps` and moved `bytes`.
void dma_engines::record(std::uint32_t engines, std::uint64_t busy_ps, std::uint64_t bytes, bool hbm) {
    constexpr std::size_t most_shared = 8;
    auto entry = std::find_if(m_shared.begin(), m_shared.end(),
                              [engines](const shared_moved& m) { return m.engines == engines; });
    if (entry == m_shared.end()) {
        if (m_shared.size() == most_shared) { // the oldest goes to its engines
            const auto& oldest = m_shared.front();
            each_bit(oldest.engines, [&](std::uint32_t e) {
                m_engines[e].busy_ps += oldest.figures.busy_ps;
                m_engines[e].bytes += oldest.figures.bytes;
                m_engines[e].hbm_bytes += oldest.figures.hbm_bytes;
            });
            m_shared.erase(m_shared.begin());
        }
        entry = m_shared.insert(m_shared.end(), {engines, {}});
    }
    entry->figures.busy_ps += busy_ps;
    entry->figures.bytes += bytes;
    if (hbm) entry->figures.hbm_bytes += bytes;
}

dma_engines::moved dma_engines::ended_on(std::uint32_t engine) const {
    auto sum = m_engines.at(engine);
    for (const auto& m : m_shared) {
        if ((m.engines >> engine & 1u) == 0) continue;
        sum.busy_ps += m.figures.busy_ps;
        sum.bytes += m.figures.bytes;
        sum.hbm_bytes += m.figures.hbm_bytes;
    }
    return sum;
}

std::optional<std::uint32_t> dma_engines::moving_device_memory() const {
    std::uint32_t engines = 0;
    for (const auto& r : m_runs) {
        if (r.serial != 0 && r.transfer->touches_hbm()) engines |= r.engines;
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
    return ended_on(engine).busy_ps + (r != nullptr ? elapsed(*r) : 0);
}

std::uint64_t dma_engines::bytes_moved(std::uint32_t engine) const {
    const auto* r = run_on(engine);
    return ended_on(engine).bytes + (r != nullptr ? data_moved(*r) : 0);
}

std::uint64_t dma_engines::hbm_bytes_moved(std::uint32_t engine) const {
    const auto* r = run_on(engine);
    return ended_on(engine).hbm_bytes + (r != nullptr && r->transfer->touches_hbm() ? data_moved(*r) : 0);
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
