#define BOOST_TEST_MODULE rate_limited_log
#include "neuron/control/rate_limited_log.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace neuron::control;
using namespace std::chrono_literals;

namespace {

struct fixture {
    rate_limited_log::clock::time_point now{1h};
    std::vector<std::string> lines;
    rate_limited_log log{[this](std::string_view l) { lines.emplace_back(l); }, 3, [this] { return now; }};
};

} // namespace

BOOST_FIXTURE_TEST_CASE(a_flood_is_cut_to_the_rate_and_the_rest_counted, fixture) {
    for (int i = 0; i < 100; ++i) log("accept failed");
    BOOST_TEST(lines.size() == 3u);
    BOOST_TEST(log.suppressed() == 97u);
    now += 1s;
    log("next");
    BOOST_TEST_REQUIRE(lines.size() == 4u);
    BOOST_TEST(lines.back() == "next (97 earlier lines not logged: more than 3 a second)");
    log("after");
    BOOST_TEST(lines.back() == "after");
}

BOOST_FIXTURE_TEST_CASE(what_a_client_sent_stays_one_line_and_inert, fixture) {
    log("dropping client 7: bad name 'x\n\x1b[2Jy'");
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    BOOST_TEST(lines[0] == "dropping client 7: bad name 'x\\n\\x1b[2Jy'");
}
