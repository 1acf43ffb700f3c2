#pragma once

#include <cstdint>
#include <deque>

namespace neuron::model {

// trn2's dI/dt current limit on the Tensor engine (engines.md, Throttling):
// when the array resumes after idling and its utilization over the last
// `window_ps` (the full-speed work it did, not the time it was busy) is
// below half, the limit engages and the burst runs at `start_rate` of full
// speed, ramping linearly back to full over `ramp_ps` of busy time under it (the
// current climbs while the array works); work without a gap keeps ramping.
// So sparse bursts all run near `start_rate`, as K2's flat 0.381 over 95%
// of its TensorE time shows. Told of each burst of array work in order, it
// says how long the burst lasts. Plain logic, no SystemC.
class tensor_throttle {
public:
    tensor_throttle(std::uint64_t window_ps, double start_rate, std::uint64_t ramp_ps);

    // Array work of `work_ps` at full speed starting at `start_ps` (no
    // earlier than the end of the last burst): its length under the limit.
    std::uint64_t run(std::uint64_t start_ps, std::uint64_t work_ps);
    // The last burst stopped at `at_ps` (a run cut short): what it would
    // have done after that is forgotten, its figures included.
    void cut(std::uint64_t at_ps);

    // How many bursts started with the limit engaged, the time they ran
    // under it (below full speed) and the full-speed work done in that time:
    // limited_work_ps() / limited_ps() is the mean limit while it held.
    std::uint64_t engagements() const { return m_engagements; }
    std::uint64_t limited_ps() const { return m_limited_ps; }
    std::uint64_t limited_work_ps() const { return m_limited_work_ps; }
    // The bursts it keeps: those that end within a window of the last start.
    std::size_t kept_bursts() const { return m_recent.size(); }

private:
    struct burst {
        std::uint64_t start;
        std::uint64_t end;
        std::uint64_t work; // at full speed
    };
    std::uint64_t work_in_window(std::uint64_t at);
    std::uint64_t length(std::uint64_t into_ramp, std::uint64_t work_ps) const;
    std::uint64_t work_within(std::uint64_t into_ramp, std::uint64_t d) const;

    std::uint64_t m_window_ps;
    double m_start_rate;
    std::uint64_t m_ramp_ps;
    std::deque<burst> m_recent;    // the bursts that end within a window of the last start
    std::uint64_t m_recent_ps = 0; // their work, summed
    std::uint64_t m_into_ramp;     // busy time since the limit last engaged, up to the ramp's length
    std::uint64_t m_engagements = 0;
    std::uint64_t m_limited_ps = 0;
    std::uint64_t m_limited_work_ps = 0;
    // The last burst's place on the ramp when it started, and its time and
    // work under the limit, for cut().
    std::uint64_t m_last_into_ramp = 0;
    std::uint64_t m_last_limited_ps = 0;
    std::uint64_t m_last_limited_work_ps = 0;
};

} // namespace neuron::model
