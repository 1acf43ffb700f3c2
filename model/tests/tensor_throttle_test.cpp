#define BOOST_TEST_MODULE tensor_throttle
#include "neuron/model/hardware/tensor_throttle.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <utility>

// trn2's TensorE current limit (engines.md, Throttling): resuming after
// idling with less than 50% utilization (full-speed work) over a 3 us
// window, the burst starts at 50% of full speed and ramps back to full
// (here over 3 us).

using neuron::model::tensor_throttle;

namespace {

constexpr std::uint64_t ns = 1000; // ps
tensor_throttle trn2() { return tensor_throttle(3000 * ns, 0.5, 3000 * ns); }

} // namespace

BOOST_AUTO_TEST_CASE(a_first_short_burst_runs_at_about_half_speed) {
    auto t = trn2();
    // 100 ns of work at 0.5 + 0.5 x / 3000 ns: 0.5 d + d^2 / 12000 = 100, d = 193.7 ns.
    BOOST_TEST(t.run(0, 100 * ns) == 193'744u);
    BOOST_TEST(t.engagements() == 1u);
}

BOOST_AUTO_TEST_CASE(a_long_burst_loses_a_quarter_of_the_ramp_and_then_runs_at_full_speed) {
    auto t = trn2();
    // The ramp does 0.75 of 3 us of work in 3 us: 750 ns more than the work.
    BOOST_TEST(t.run(0, 1'000'000 * ns) == 1'000'750 * ns);
    BOOST_TEST(t.limited_ps() == 3000 * ns);
    // Under the limit it did 2250 ns of full-speed work in 3000 ns: a mean limit of 0.75.
    BOOST_TEST(t.limited_work_ps() == 2250 * ns);
    // Resuming 10 ns later, the window holds 2990 ns of full-speed work, more
    // than half: no new engagement, and the burst runs at full speed.
    BOOST_TEST(t.run(1'000'760 * ns, 100 * ns) == 100 * ns);
    BOOST_TEST(t.engagements() == 1u);
}

BOOST_AUTO_TEST_CASE(sparse_bursts_each_start_under_the_limit_again) {
    auto t = trn2();
    // 100 ns of work every microsecond: about 20% busy over any 3 us.
    for (std::uint64_t k = 0; k < 10; ++k) BOOST_TEST(t.run(k * 1000 * ns, 100 * ns) == 193'744u);
    BOOST_TEST(t.engagements() == 10u);
    // All of each burst ran under the limit, doing its 100 ns of work.
    BOOST_TEST(t.limited_ps() == 10 * 193'744u);
    BOOST_TEST(t.limited_work_ps() == 10 * 100 * ns);
}

BOOST_AUTO_TEST_CASE(bursts_busy_more_than_half_the_window_keep_ramping) {
    auto t = trn2();
    const auto first = t.run(0, 1000 * ns); // under the ramp
    BOOST_TEST(first > 1000 * ns);
    BOOST_TEST(first < 2000 * ns);
    // Starting right after it (no gap): no new engagement, and the rate is
    // higher than at the ramp's start.
    const auto second = t.run(first, 100 * ns);
    BOOST_TEST(t.engagements() == 1u);
    BOOST_TEST(second < 193'744u);
    BOOST_TEST(second > 100 * ns);
}

BOOST_AUTO_TEST_CASE(no_work_takes_no_time_and_engages_nothing) {
    auto t = trn2();
    BOOST_TEST(t.run(0, 0) == 0u);
    BOOST_TEST(t.engagements() == 0u);
    BOOST_TEST(t.limited_ps() == 0u);
    BOOST_TEST(t.limited_work_ps() == 0u);
}

BOOST_AUTO_TEST_CASE(only_the_part_of_a_burst_inside_the_window_counts) {
    // 2000 ns of work take 2744.6 ns from the ramp's start (0.5 d + d^2 / 12000
    // = 2000). After a gap g the 3 us window holds 3000 - g ns of it, pro
    // rata 2000 / 2744.6 of that as work: half the window (1500 ns) at
    // g = 942 ns.
    for (const auto& [gap, engages] : {std::pair{900 * ns, false}, std::pair{1000 * ns, true}}) {
        auto t = trn2();
        const auto first = t.run(0, 2000 * ns);
        BOOST_TEST(first == 2'744'563u);
        t.run(first + gap, 100 * ns);
        BOOST_TEST(t.engagements() == (engages ? 2u : 1u), "gap " << gap);
    }
}

BOOST_AUTO_TEST_CASE(utilization_is_the_work_done_not_the_time_busy) {
    auto t = trn2();
    // 100 ns of work, 193.7 ns long under the limit, every 300 ns: busy 65%
    // of any window but a third of its full-speed work, so each burst after
    // a gap starts under the limit again.
    for (std::uint64_t k = 0; k < 20; ++k) BOOST_TEST(t.run(k * 300 * ns, 100 * ns) == 193'744u);
    BOOST_TEST(t.engagements() == 20u);
    BOOST_TEST(t.limited_ps() == 20 * 193'744u);
}

BOOST_AUTO_TEST_CASE(work_without_a_gap_keeps_ramping_whatever_the_window) {
    auto t = trn2();
    // The window holds 100 ns of work, far below half, but the array never idled.
    const auto first = t.run(0, 100 * ns);
    const auto second = t.run(first, 100 * ns);
    BOOST_TEST(t.engagements() == 1u);
    BOOST_TEST(second < first);
    // 200 ns of work in one burst from the ramp's start take as long as both.
    auto one = trn2();
    const auto together = static_cast<std::int64_t>(one.run(0, 200 * ns));
    BOOST_TEST(std::llabs(together - static_cast<std::int64_t>(first + second)) <= 1); // rounding
}

BOOST_AUTO_TEST_CASE(bursts_without_gaps_are_forgotten_past_the_window) {
    auto t = trn2();
    // 100 000 bursts back to back: only those within 3 us of the last start are kept.
    std::uint64_t at = 0;
    for (int k = 0; k < 100'000; ++k) at += t.run(at, 100 * ns);
    BOOST_TEST(t.engagements() == 1u);
    BOOST_TEST(t.kept_bursts() <= 31u); // 100 ns each at full speed
}

BOOST_AUTO_TEST_CASE(a_burst_cut_short_counts_only_what_it_ran) {
    auto whole = trn2();
    const auto first = whole.run(0, 1000 * ns);
    auto cut = trn2();
    BOOST_TEST(cut.run(0, 2000 * ns) > first);
    cut.cut(first); // stopped where the 1000 ns burst would have ended
    BOOST_TEST(cut.limited_ps() == whole.limited_ps());
    BOOST_TEST(cut.limited_work_ps() + 1 >= whole.limited_work_ps());
    BOOST_TEST(cut.limited_work_ps() <= whole.limited_work_ps() + 1);
    // Both go on from the same place on the ramp, with the same window.
    BOOST_TEST(cut.run(first + 100 * ns, 100 * ns) == whole.run(first + 100 * ns, 100 * ns));
    BOOST_TEST(cut.engagements() == whole.engagements());
}

BOOST_AUTO_TEST_CASE(a_burst_cut_before_it_started_is_forgotten) {
    auto t = trn2();
    t.run(1000 * ns, 100 * ns);
    t.cut(500 * ns); // stopped while it waited to start
    BOOST_TEST(t.limited_ps() == 0u);
    BOOST_TEST(t.limited_work_ps() == 0u);
    BOOST_TEST(t.kept_bursts() == 0u);
    BOOST_TEST(t.run(2000 * ns, 100 * ns) == 193'744u); // from the ramp's start again
}
