#include "neuron/model/dma_engine.h"

#include "neuron/model/engine_costs.h"
#include "neuron/model/errors.h"
#include "neuron/model/memory_bandwidth.h"

#include <algorithm>
#include <cmath>

namespace neuron::model {
namespace {
std::uint64_t now_ps() { return static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()); }
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
        advance_to(now_ps());
        m_busy_ps += now_ps() - m_started;
        if (m_slice.touches_hbm) m_memory.leave(*this);
        m_active = false;
    }
    for (auto& q : m_queues) q.clear();
    m_queued = 0;
    m_wake.cancel();
}

std::uint64_t dma_engine::busy_ps() const {
    if (!m_active) return m_busy_ps;
    return m_busy_ps + std::min(now_ps(), m_end) - m_started;
}

namespace {
// Data bytes of `slice` moved when `remaining` of its `total` work is left.
std::uint64_t moved(const dma_slice& slice, double total, double remaining) {
    if (total <= 0) return 0;
    const auto data = static_cast<double>(slice.descriptors) * static_cast<double>(slice.bytes_per_descriptor);
    return static_cast<std::uint64_t>(data * std::clamp((total - remaining) / total, 0.0, 1.0));
}
} // namespace

std::uint64_t dma_engine::bytes_moved() const {
    if (!m_active) return m_bytes;
    const auto remaining = m_remaining - m_rate * static_cast<double>(now_ps() - m_since);
    return m_bytes + moved(m_slice, m_total, remaining);
}

std::uint64_t dma_engine::hbm_bytes_moved() const {
    if (!m_active || !m_slice.touches_hbm) return m_hbm_bytes;
    return m_hbm_bytes + (bytes_moved() - m_bytes);
}

void dma_engine::set_rate(double bytes_per_ps) {
    if (!m_active || bytes_per_ps == m_rate) return;
    const auto now = now_ps();
    advance_to(now);
    m_rate = bytes_per_ps;
    schedule_end(now);
}

void dma_engine::advance_to(std::uint64_t now) {
    m_remaining = std::max(0.0, m_remaining - m_rate * static_cast<double>(now - m_since));
    m_since = now;
}

void dma_engine::schedule_end(std::uint64_t now) {
    m_end = now + static_cast<std::uint64_t>(std::ceil(m_remaining / m_rate));
    m_wake.cancel();
    m_wake.notify(sc_core::sc_time::from_value(m_end - now));
}

// Woken by an enqueue, the end of the slice in progress, or the time the
// first queued slice becomes ready.
void dma_engine::step() {
    const auto now = now_ps();
    if (m_active) {
        if (now < m_end) {
            m_wake.notify(sc_core::sc_time::from_value(m_end - now)); // an enqueue woke it early
            return;
        }
        end_slice();
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
        m_remaining = m_total;
        m_started = m_since = now;
        m_rate = m_peak;
        if (m_slice.touches_hbm) m_memory.join(*this); // sets this engine's share
        schedule_end(now);
        return true;
    }
    m_wake.notify(sc_core::sc_time::from_value(earliest - now));
    return false;
}

void dma_engine::end_slice() {
    m_active = false;
    m_busy_ps += m_end - m_started;
    const auto bytes = static_cast<std::uint64_t>(m_slice.descriptors) * m_slice.bytes_per_descriptor;
    m_bytes += bytes;
    if (m_slice.touches_hbm) {
        m_hbm_bytes += bytes;
        m_memory.leave(*this);
    }
    if (m_slice.semaphore != UINT32_MAX) m_semaphores.add(m_slice.semaphore, 1);
    if (m_ended) m_ended();
}

} // namespace neuron::model
