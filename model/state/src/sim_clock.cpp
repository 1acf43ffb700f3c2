#include "neuron/model/state/sim_clock.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace neuron::model {

sim_clock::sim_clock(time_mode mode, double real_time_factor, std::int64_t start_epoch_ns)
        : m_mode(mode), m_rtf(real_time_factor), m_start_epoch_ns(start_epoch_ns) {}

std::uint64_t sim_clock::now_ns() const {
    const auto kernel = m_kernel_ns.load(std::memory_order_acquire);
    if (m_mode == time_mode::stepped) return kernel;
    return std::max(kernel, sim_at(wall_clock::now()));
}

void sim_clock::anchor(std::uint64_t sim_ns, wall_clock::time_point wall, std::uint64_t limit_ns) {
    m_anchor_sim_ns.store(sim_ns, std::memory_order_relaxed);
    m_limit_ns.store(limit_ns, std::memory_order_relaxed);
    m_anchor_wall.store(wall.time_since_epoch().count(), std::memory_order_release);
}

std::uint64_t sim_clock::sim_at(wall_clock::time_point wall) const {
    const auto anchor_wall =
        wall_clock::time_point(wall_clock::duration(m_anchor_wall.load(std::memory_order_acquire)));
    const auto anchor_sim = m_anchor_sim_ns.load(std::memory_order_relaxed);
    const auto limit = m_limit_ns.load(std::memory_order_relaxed);
    const auto elapsed = std::chrono::duration<double, std::nano>(wall - anchor_wall).count();
    if (elapsed <= 0) return anchor_sim;
    const double advanced = elapsed * m_rtf;
    if (advanced >= static_cast<double>(limit - anchor_sim)) return limit;
    return anchor_sim + static_cast<std::uint64_t>(advanced);
}

sim_clock::wall_clock::time_point sim_clock::wall_at(std::uint64_t sim_ns) const {
    const auto anchor_wall =
        wall_clock::time_point(wall_clock::duration(m_anchor_wall.load(std::memory_order_acquire)));
    const auto anchor_sim = m_anchor_sim_ns.load(std::memory_order_relaxed);
    if (sim_ns <= anchor_sim) return anchor_wall;
    const double wall_ns = static_cast<double>(sim_ns - anchor_sim) / m_rtf;
    // Far-future events (or none at all) must not overflow the wall clock.
    constexpr double horizon_ns = 365.0 * 24 * 3600 * 1e9;
    return anchor_wall + std::chrono::nanoseconds(static_cast<std::int64_t>(std::min(wall_ns, horizon_ns)));
}

} // namespace neuron::model
