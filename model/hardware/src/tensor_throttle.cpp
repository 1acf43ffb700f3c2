#include "neuron/model/hardware/tensor_throttle.h"

#include <algorithm>
#include <cmath>

namespace neuron::model {

tensor_throttle::tensor_throttle(std::uint64_t window_ps, double start_rate, std::uint64_t ramp_ps)
        : m_window_ps(window_ps), m_start_rate(start_rate), m_ramp_ps(ramp_ps), m_into_ramp(ramp_ps) {}

// Bursts follow one another and `at` is no earlier than the last one's
// end: only the oldest kept can start before the window, and the part of
// its work inside counts pro rata.
std::uint64_t tensor_throttle::work_in_window(std::uint64_t at) {
    const auto from = at > m_window_ps ? at - m_window_ps : 0;
    while (!m_recent.empty() && m_recent.front().end <= from) {
        m_recent_ps -= m_recent.front().work;
        m_recent.pop_front();
    }
    if (m_recent.empty()) return 0;
    const auto& oldest = m_recent.front();
    if (oldest.start >= from) return m_recent_ps;
    const auto before = static_cast<unsigned __int128>(from - oldest.start) * oldest.work / (oldest.end - oldest.start);
    return m_recent_ps - static_cast<std::uint64_t>(before);
}

// The time `work_ps` takes `into_ramp` ps of work after the limit engaged: the
// rate climbs from start_rate to 1 over the ramp, r(x) = s + (1 - s) x / R.
std::uint64_t tensor_throttle::length(std::uint64_t into_ramp, std::uint64_t work_ps) const {
    if (into_ramp >= m_ramp_ps) return work_ps;
    const double s = m_start_rate;
    const double ramp = static_cast<double>(m_ramp_ps);
    const double a = static_cast<double>(into_ramp);
    const double w = static_cast<double>(work_ps);
    const double slope = (1 - s) / ramp;
    const double rate = s + slope * a;
    const double rest_of_ramp = ramp - a;
    const double ramp_work = rate * rest_of_ramp + slope * rest_of_ramp * rest_of_ramp / 2;
    if (w >= ramp_work) return static_cast<std::uint64_t>(std::llround(rest_of_ramp + (w - ramp_work)));
    // rate d + slope d^2 / 2 = w
    const double d = (-rate + std::sqrt(rate * rate + 2 * slope * w)) / slope;
    return static_cast<std::uint64_t>(std::llround(d));
}

// The full-speed work done over `d` ps from `into_ramp` ps into the ramp
// (all of it on the ramp): the integral of r(x) from into_ramp to into_ramp + d.
std::uint64_t tensor_throttle::work_within(std::uint64_t into_ramp, std::uint64_t d) const {
    const double slope = (1 - m_start_rate) / static_cast<double>(m_ramp_ps);
    const double middle = static_cast<double>(into_ramp) + static_cast<double>(d) / 2;
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(d) * (m_start_rate + slope * middle)));
}

std::uint64_t tensor_throttle::run(std::uint64_t start_ps, std::uint64_t work_ps) {
    if (work_ps == 0) return 0;
    // Resuming after idling with less than half the window's full-speed
    // work done: the limit engages again. Work that goes on without a gap
    // keeps ramping.
    const bool after_idle = m_recent.empty() || start_ps > m_recent.back().end;
    const auto work = work_in_window(start_ps); // and forgets the bursts before the window
    if (after_idle && 2 * work < m_window_ps) {
        m_into_ramp = 0;
        ++m_engagements;
    }
    const auto ps = length(m_into_ramp, work_ps);
    m_last_into_ramp = m_into_ramp;
    m_last_limited_ps = m_into_ramp < m_ramp_ps ? std::min(ps, m_ramp_ps - m_into_ramp) : 0;
    m_last_limited_work_ps = work_within(m_into_ramp, m_last_limited_ps);
    m_limited_ps += m_last_limited_ps;
    m_limited_work_ps += m_last_limited_work_ps;
    m_into_ramp = std::min(m_ramp_ps, m_into_ramp + ps); // it ramps while the array works
    m_recent.push_back({start_ps, start_ps + ps, work_ps});
    m_recent_ps += work_ps;
    return ps;
}

void tensor_throttle::cut(std::uint64_t at_ps) {
    if (m_recent.empty() || at_ps >= m_recent.back().end) return;
    auto& last = m_recent.back();
    const auto kept = at_ps > last.start ? at_ps - last.start : 0;
    const auto limited = std::min(m_last_limited_ps, kept);
    const auto limited_work = work_within(m_last_into_ramp, limited);
    m_limited_ps -= m_last_limited_ps - limited;
    m_limited_work_ps -= m_last_limited_work_ps - limited_work;
    m_last_limited_ps = limited;
    m_last_limited_work_ps = limited_work;
    m_into_ramp = std::min(m_ramp_ps, m_last_into_ramp + kept);
    // At full speed past the limit; no more than the whole burst's, rounding aside.
    const auto work = std::min(last.work, limited_work + (kept - limited));
    m_recent_ps -= last.work - work;
    if (kept == 0) {
        m_recent.pop_back();
        return;
    }
    last.end = at_ps;
    last.work = work;
}

} // namespace neuron::model
