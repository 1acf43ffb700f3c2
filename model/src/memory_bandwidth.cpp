#include "neuron/model/memory_bandwidth.h"

#include "neuron/model/dma_engine.h"

#include <algorithm>
#include <cmath>

namespace neuron::model {
namespace {
std::uint64_t now_ps() { return static_cast<std::uint64_t>(sc_core::sc_time_stamp().value()); }
} // namespace

memory_bandwidth::memory_bandwidth(sc_core::sc_module_name name, std::uint64_t bytes_per_ns,
                                   std::uint64_t engine_bytes_per_ns)
    : sc_module(name), m_total(static_cast<double>(bytes_per_ns) / 1000.0),
      m_peak(static_cast<double>(engine_bytes_per_ns) / 1000.0) {
    SC_METHOD(step);
    sensitive << m_first_end;
    dont_initialize();
}

double memory_bandwidth::marks_now() const { return m_marks + m_rate * static_cast<double>(now_ps() - m_marks_at); }

double memory_bandwidth::moved_since(double mark) const { return std::max(0.0, marks_now() - mark); }

void memory_bandwidth::advance() {
    m_marks = marks_now();
    m_marks_at = now_ps();
}

double memory_bandwidth::start(dma_engine& e, double work) {
    advance();
    m_ends.emplace(m_marks + work, &e);
    reschedule();
    return m_marks;
}

void memory_bandwidth::cancel(dma_engine& e, double mark, double work) {
    advance();
    m_ends.erase({mark + work, &e});
    reschedule();
}

// The rate for the transfers now on, and the time the first of them ends.
void memory_bandwidth::reschedule() {
    m_first_end.cancel();
    if (m_ends.empty()) {
        m_rate = 0;
        return;
    }
    m_rate = std::min(m_peak, m_total / static_cast<double>(m_ends.size()));
    const auto left = std::max(0.0, m_ends.begin()->first - m_marks);
    m_first_end.notify(sc_core::sc_time::from_value(static_cast<std::uint64_t>(std::ceil(left / m_rate))));
}

// The first transfer ended (and any due within the same picosecond).
void memory_bandwidth::step() {
    advance();
    const auto due = m_marks + m_rate;
    while (!m_ends.empty() && m_ends.begin()->first <= due) {
        m_ends.begin()->second->memory_done();
        m_ends.erase(m_ends.begin());
    }
    reschedule();
}

} // namespace neuron::model
