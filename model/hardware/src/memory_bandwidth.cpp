#include "neuron/model/hardware/memory_bandwidth.h"

#include "neuron/model/hardware/kernel_time.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace neuron::model {
namespace {
// std::*_heap keep the greatest on top; the first to end belongs there.
constexpr std::greater<> later;
} // namespace

memory_bandwidth::memory_bandwidth(sc_core::sc_module_name name, std::uint64_t bytes_per_ns, double engine_bytes_per_ns)
        : sc_module(name), m_total(static_cast<double>(bytes_per_ns) / 1000.0), m_peak(engine_bytes_per_ns / 1000.0) {
    SC_METHOD(step);
    sensitive << m_first_end;
    dont_initialize();
}

double memory_bandwidth::marks_at(std::uint64_t now) const {
    return m_marks + m_rate * static_cast<double>(now - m_marks_at);
}

double memory_bandwidth::moved_since(double mark) const { return std::max(0.0, marks_at(now_ps()) - mark); }

void memory_bandwidth::advance() {
    const auto now = now_ps();
    m_marks = marks_at(now);
    m_marks_at = now;
}

double memory_bandwidth::start(memory_client& client, std::uint64_t token, double work, std::uint32_t weight) {
    advance();
    m_ends.emplace_back(m_marks + work, &client, token, weight);
    std::push_heap(m_ends.begin(), m_ends.end(), later);
    m_weight += weight;
    reschedule();
    return m_marks;
}

void memory_bandwidth::cancel(memory_client& client, std::uint64_t token) {
    advance();
    const auto it = std::find_if(m_ends.begin(), m_ends.end(),
                                 [&](const entry& e) { return std::get<1>(e) == &client && std::get<2>(e) == token; });
    if (it != m_ends.end()) {
        m_weight -= std::get<3>(*it);
        m_ends.erase(it);
        std::make_heap(m_ends.begin(), m_ends.end(), later);
    }
    reschedule();
}

// The rate for the transfers now on, and the time the first of them ends.
// A wake already set for that time stays. With none on, nobody holds a
// mark: they count from 0 again, so a transfer's timing keeps the same
// precision however much moved before it.
void memory_bandwidth::reschedule() {
    auto wake_at = UINT64_MAX;
    if (m_ends.empty()) {
        m_rate = 0;
        m_marks = 0;
    } else {
        m_rate = std::min(m_peak, m_total / static_cast<double>(m_weight));
        const auto left = std::max(0.0, std::get<0>(m_ends.front()) - m_marks);
        wake_at = m_marks_at + static_cast<std::uint64_t>(std::ceil(left / m_rate));
    }
    if (wake_at == m_wake_at) return;
    m_first_end.cancel();
    m_wake_at = wake_at;
    if (wake_at != UINT64_MAX) m_first_end.notify(sc_core::sc_time::from_value(wake_at - m_marks_at));
}

// The first transfers ended (and any due within the same picosecond). Their
// clients are told after they left the heap, so what they start next sees
// the rate without them.
void memory_bandwidth::step() {
    m_wake_at = UINT64_MAX; // the wake that ran
    advance();
    const auto due = m_marks + m_rate;
    m_ended.clear();
    while (!m_ends.empty() && std::get<0>(m_ends.front()) <= due) {
        std::pop_heap(m_ends.begin(), m_ends.end(), later);
        m_ended.push_back(m_ends.back());
        m_weight -= std::get<3>(m_ends.back());
        m_ends.pop_back();
    }
    reschedule();
    for (const auto& [end, client, token, weight] : m_ended) client->memory_done(token);
}

} // namespace neuron::model
