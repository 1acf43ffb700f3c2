#include "neuron/model/memory_bandwidth.h"

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

double memory_bandwidth::start(memory_client& client, std::uint64_t token, double work, std::uint32_t weight) {
    advance();
    m_ends.emplace(m_marks + work, &client, token, weight);
    m_weight += weight;
    reschedule();
    return m_marks;
}

void memory_bandwidth::cancel(memory_client& client, std::uint64_t token, double mark, double work) {
    advance();
    const auto it = m_ends.lower_bound({mark + work, &client, token, 0});
    if (it != m_ends.end() && std::get<1>(*it) == &client && std::get<2>(*it) == token) {
        m_weight -= std::get<3>(*it);
        m_ends.erase(it);
    }
    reschedule();
}

// The rate for the transfers now on, and the time the first of them ends.
void memory_bandwidth::reschedule() {
    m_first_end.cancel();
    if (m_ends.empty()) {
        m_rate = 0;
        return;
    }
    m_rate = std::min(m_peak, m_total / static_cast<double>(m_weight));
    const auto left = std::max(0.0, std::get<0>(*m_ends.begin()) - m_marks);
    m_first_end.notify(sc_core::sc_time::from_value(static_cast<std::uint64_t>(std::ceil(left / m_rate))));
}

// The first transfers ended (and any due within the same picosecond). Their
// clients are told after they left the set, so what they start next sees
// the rate without them.
void memory_bandwidth::step() {
    advance();
    const auto due = m_marks + m_rate;
    m_ended.clear();
    while (!m_ends.empty() && std::get<0>(*m_ends.begin()) <= due) {
        m_ended.push_back(*m_ends.begin());
        m_weight -= std::get<3>(*m_ends.begin());
        m_ends.erase(m_ends.begin());
    }
    reschedule();
    for (const auto& [end, client, token, weight] : m_ended) client->memory_done(token);
}

} // namespace neuron::model
