#define BOOST_TEST_MODULE tensor_throttle
#include "neuron/model/hardware/tensor_throttle.h"

#include <boost/test/unit_test.hpp>

#include <utility>

// trn2's TensorE current limit (engines.md, Throttling): below 50%
// utilization over a 3 us window, the next burst starts at 50% of full
// speed and ramps back to full (here over 3 us).

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
    // Busy all through the window: the next burst runs at full speed.
    BOOST_TEST(t.run(1'000'750 * ns, 100 * ns) == 100 * ns);
    BOOST_TEST(t.engagements() == 1u);
}

BOOST_AUTO_TEST_CASE(sparse_bursts_each_start_under_the_limit_again) {
    auto t = trn2();
    // 100 ns of work every microsecond: about 20% busy over any 3 us.
    for (std::uint64_t k = 0; k < 10; ++k) BOOST_TEST(t.run(k * 1000 * ns, 100 * ns) == 193'744u);
    BOOST_TEST(t.engagements() == 10u);
}

BOOST_AUTO_TEST_CASE(bursts_busy_more_than_half_the_window_keep_ramping) {
    auto t = trn2();
    const auto first = t.run(0, 1000 * ns); // under the ramp
    BOOST_TEST(first > 1000 * ns);
    BOOST_TEST(first < 2000 * ns);
    // Starting right after it, over half of the last 3 us was busy: no new
    // engagement, and the rate is higher than at the ramp's start.
    const auto second = t.run(first, 100 * ns);
    BOOST_TEST(t.engagements() == 1u);
    BOOST_TEST(second < 193'744u);
    BOOST_TEST(second > 100 * ns);
}

BOOST_AUTO_TEST_CASE(no_work_takes_no_time_and_engages_nothing) {
    auto t = trn2();
    BOOST_TEST(t.run(0, 0) == 0u);
    BOOST_TEST(t.engagements() == 0u);
}

BOOST_AUTO_TEST_CASE(only_the_part_of_a_burst_inside_the_window_counts) {
    // A burst, then another 1.4 us or 1.6 us after it ends: the window of
    // 3 us holds 1.6 us or 1.4 us of the first, more or less than half.
    for (const auto& [gap, engages] : {std::pair{1400 * ns, false}, std::pair{1600 * ns, true}}) {
        auto t = trn2();
        const auto first = t.run(0, 2000 * ns);
        t.run(first + gap, 100 * ns);
        BOOST_TEST(t.engagements() == (engages ? 2u : 1u), "gap " << gap);
    }
}
