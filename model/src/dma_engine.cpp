#include "neuron/model/dma_engine.h"

#include "neuron/model/engine_costs.h"
#include "neuron/model/errors.h"
#include "neuron/model/memory_bandwidth.h"

#include <algorithm>
#include <cmath>

namespace neuron::model {
namespace {
std::uint64_t now_ps() { return static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()); }

// Data bytes of `slice` moved when `done` of its `total` work is.
std::uint64_t moved(const dma_slice& slice, double total, double done) {
    if (total <= 0) return 0;
    const auto data = static_cast<double>(slice.descriptors) * static_cast<double>(slice.bytes_per_descriptor);
    return static_cast<std::uint64_t>(data * std::clamp(done / total, 0.0, 1.0));
}
} // namespace

dma_engine::dma_engine(sc_core::sc_module_name name, std::uint32_t index, std::uint32_t queue_count,
                       std::uint64_t bytes_per_ns, memory_bandwidth& memory, semaphore_bank& semaphores)
    : sc_module(name), m_index(index), m_peak(static_cast<double>(bytes_per_ns) / 1000.0), m_memory(memory),
      m_semaphores(semaphores), m_queues(queue_count) {
    SC_METHOD(step);
    sensitive << m_wake;
    dont_initialize();
}

void dma_engine::enqueue(std::uint32_t queue, const dma_slice& slice) {
    if (queue >= m_queues.size()) throw invalid_argument_error("a DMA engine has no such queue");
    m_queues[queue].push_back(slice);
    ++m_queued;
    if (!m_active) m_wake.notify(sc_core::SC_ZERO_TIME);
}

void dma_engine::stop() {
    if (m_active) {
        const auto now = now_ps();
        const auto bytes = moved(m_slice, m_total, moved_work());
        m_bytes += bytes;
        if (m_slice.touches_hbm) {
            m_hbm_bytes += bytes;
            if (!m_memory_done) m_memory.cancel(*this, m_mark, m_total);
        }
        m_busy_ps += now - m_started;
        m_active = false;
    }
    for (auto& q : m_queues) q.clear();
    m_queued = 0;
    m_wake.cancel();
}

std::uint64_t dma_engine::busy_ps() const {
    if (!m_active) return m_busy_ps;
    const auto now = now_ps();
    return m_busy_ps + (m_slice.touches_hbm ? now : std::min(now, m_end)) - m_started;
}

double dma_engine::moved_work() const {
    if (m_slice.touches_hbm) return m_memory_done ? m_total : std::min(m_total, m_memory.moved_since(m_mark));
    if (m_end == m_started) return m_total;
    const auto elapsed = static_cast<double>(std::min(now_ps(), m_end) - m_started);
    return m_total * elapsed / static_cast<double>(m_end - m_started);
}

std::uint64_t dma_engine::bytes_moved() const {
    if (!m_active) return m_bytes;
    return m_bytes + moved(m_slice, m_total, moved_work());
}

std::uint64_t dma_engine::hbm_bytes_moved() const {
    if (!m_active || !m_slice.touches_hbm) return m_hbm_bytes;
    return m_hbm_bytes + moved(m_slice, m_total, moved_work());
}

void dma_engine::memory_done() {
    m_memory_done = true;
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

// Woken by an enqueue, the end of the slice in progress, or the time the
// first queued slice becomes ready.
void dma_engine::step() {
    const auto now = now_ps();
    if (m_active) {
        const bool ended = m_slice.touches_hbm ? m_memory_done : now >= m_end;
        if (!ended) {
            if (!m_slice.touches_hbm) m_wake.notify(sc_core::sc_time::from_value(m_end - now)); // woken early
            return;
        }
        end_slice(now);
    }
    if (!m_active) start_next(now);
}

bool dma_engine::start_next(std::uint64_t now) {
    if (m_queued == 0) return false;
    std::uint64_t earliest = UINT64_MAX;
    const auto n = m_queues.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto q = (m_next_queue + i) % n;
        if (m_queues[q].empty()) continue;
        const auto& head = m_queues[q].front();
        if (head.ready_ps > now) {
            earliest = std::min(earliest, head.ready_ps);
            continue;
        }
        m_slice = head;
        m_queues[q].pop_front();
        --m_queued;
        m_next_queue = (q + 1) % n;
        m_active = true;
        m_total = static_cast<double>(m_slice.descriptors) *
                  static_cast<double>(m_slice.bytes_per_descriptor + costs::dma_descriptor_bytes);
        m_started = now;
        if (m_slice.touches_hbm && m_total > 0) {
            m_memory_done = false;
            m_mark = m_memory.start(*this, m_total);
        } else {
            m_slice.touches_hbm = m_slice.touches_hbm && m_total > 0; // an empty slice moves nothing
            m_end = now + static_cast<std::uint64_t>(std::ceil(m_total / m_peak));
            m_wake.notify(sc_core::sc_time::from_value(m_end - now));
        }
        return true;
    }
    m_wake.notify(sc_core::sc_time::from_value(earliest - now));
    return false;
}

void dma_engine::end_slice(std::uint64_t now) {
    m_active = false;
    m_busy_ps += now - m_started;
    const auto bytes = static_cast<std::uint64_t>(m_slice.descriptors) * m_slice.bytes_per_descriptor;
    m_bytes += bytes;
    if (m_slice.touches_hbm) m_hbm_bytes += bytes;
    if (m_slice.semaphore != UINT32_MAX) m_semaphores.add(m_slice.semaphore, 1);
    if (m_ended) m_ended();
}

} // namespace neuron::model
