#define BOOST_TEST_MODULE shim_rate_limited_log
// The shim's rate-limited log line on its own (src/rate_limited_log.*): a
// line an interval, the ones held back counted in the next, on a clock the
// test moves.

#include "rate_limited_log.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <thread>
#include <vector>

using neuron::shim::rate_limited_line;
using namespace std::chrono_literals;

namespace {

struct test_clock {
    rate_limited_line::clock::time_point now{};
    rate_limited_line::time_source source() {
        return [this] { return now; };
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(one_line_a_second_passes_and_the_next_counts_the_rest) {
    test_clock t;
    rate_limited_line line(1s, t.source());
    BOOST_TEST(line.pass("full").value_or("(none)") == "full");
    for (int i = 0; i < 1000; ++i) BOOST_TEST(!line.pass("full").has_value());
    t.now += 999ms;
    BOOST_TEST(!line.pass("full").has_value());
    t.now += 1ms;
    BOOST_TEST(line.pass("full").value_or("(none)") == "full (1001 more like it not logged)");
    t.now += 5s;
    BOOST_TEST(line.pass("full").value_or("(none)") == "full"); // nothing held back since
}

// Threads refusing at once: exactly one line gets through, the others are counted.
BOOST_AUTO_TEST_CASE(threads_at_once_get_one_line_through) {
    test_clock t;
    rate_limited_line line(1s, t.source());
    std::vector<int> passed(8, 0);
    {
        std::vector<std::jthread> threads;
        for (std::size_t k = 0; k < passed.size(); ++k) {
            threads.emplace_back([&line, &passed, k] {
                for (int i = 0; i < 100; ++i) passed[k] += line.pass("full").has_value() ? 1 : 0;
            });
        }
    }
    int total = 0;
    for (const auto p : passed) total += p;
    BOOST_TEST(total == 1);
    t.now += 1s;
    BOOST_TEST(line.pass("full").value_or("(none)") == "full (799 more like it not logged)");
}
