#include "neuron/model/state/activity.h"

#include "neuron/model/state/published_state.h"

#include <algorithm>

namespace neuron::model {
namespace {

constexpr std::uint64_t basis_points = 10'000;

// `w` with `busy` cores over [from, to).
void extend(occupancy_window& w, std::uint64_t busy, std::uint64_t from, std::uint64_t to) {
    if (to <= from) return;
    w.min = w.covered_ns == 0 ? busy : std::min(w.min, busy);
    w.max = w.covered_ns == 0 ? busy : std::max(w.max, busy);
    w.core_ns += busy * (to - from);
    w.covered_ns += to - from;
}

occupancy_window constant(std::uint64_t busy) {
    occupancy_window w;
    extend(w, busy, 0, power_sample_period_ns);
    return w;
}

// The sample window before `sample` (a multiple of the period), from a
// record written at or before it.
occupancy_window window_before(const occupancy_record& r, std::uint64_t sample) {
    const auto wanted = sample / power_sample_period_ns - 1;
    if (r.window == wanted) {
        auto w = r.current;
        extend(w, r.busy, r.changed_ns, sample);
        return w;
    }
    if (r.window < wanted) return constant(r.busy);
    // The kernel has moved on to the window this sample closes (or, for a
    // reader whose clock lags the kernel's, further): it kept the one before.
    return r.previous;
}

std::uint64_t mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(a) * b / c);
}

} // namespace

occupancy_record occupancy_changed(occupancy_record r, std::uint64_t at_ns, std::uint64_t busy) {
    const auto window = at_ns / power_sample_period_ns;
    if (window == r.window) {
        extend(r.current, r.busy, r.changed_ns, at_ns);
    } else {
        extend(r.current, r.busy, r.changed_ns, (r.window + 1) * power_sample_period_ns);
        r.previous = window == r.window + 1 ? r.current : constant(r.busy);
        r.current = {};
        extend(r.current, r.busy, window * power_sample_period_ns, at_ns);
        r.window = window;
    }
    r.changed_ns = at_ns;
    r.busy = busy;
    return r;
}

power_reading read_utilization(const published_state& state, std::uint32_t device) {
    state.check_device(device);
    const auto now = state.clock().now_ns();
    if (now < power_sample_period_ns) return {power_status_no_data};
    const auto sample_ns = now / power_sample_period_ns * power_sample_period_ns;
    const auto w = window_before(state.occupancy(device), sample_ns);
    const std::uint64_t cores = state.cores_per_device();
    power_reading reading{power_status_valid};
    reading.epoch_seconds = state.clock().epoch_ns(sample_ns) / 1'000'000'000;
    reading.min_bp = static_cast<std::uint32_t>(w.min * basis_points / cores);
    reading.max_bp = static_cast<std::uint32_t>(w.max * basis_points / cores);
    reading.avg_bp = static_cast<std::uint32_t>(mul_div(w.core_ns, basis_points, power_sample_period_ns * cores));
    return reading;
}

std::vector<pe_row_reading> read_pe_counters(const published_state& state, std::uint32_t device, std::uint32_t core) {
    state.check_core(device, static_cast<std::int32_t>(core));
    const auto groups = state.spec().pe_row_groups;
    if (groups == 0) return {};
    const auto now_ps = state.clock().now_ns() * 1000;
    const auto t = state.pe_activity(device, core);
    // The share of the stretch under way that has run by now.
    const auto run_ps = now_ps <= t.stretch_start_ps ? 0 : std::min(now_ps - t.stretch_start_ps, t.stretch_ps);
    const auto so_far = [&](std::uint64_t done, std::uint64_t in_stretch) {
        return done + (t.stretch_ps == 0 ? 0 : mul_div(in_stretch, run_ps, t.stretch_ps));
    };
    const auto hz = state.spec().core_clock_hz;
    const auto cycles = [hz](std::uint64_t ps) { return mul_div(ps, hz, 1'000'000'000'000); };
    std::vector<pe_row_reading> rows;
    for (std::uint32_t g = 0; g < groups; ++g) {
        const auto matmul = so_far(t.matmul_ps[g], t.stretch_matmul_ps[g]);
        const auto weight_load = so_far(t.weight_load_ps[g], t.stretch_weight_load_ps[g]);
        rows.push_back({g, cycles(matmul), cycles(weight_load), cycles(now_ps > matmul ? now_ps - matmul : 0)});
    }
    return rows;
}

} // namespace neuron::model
