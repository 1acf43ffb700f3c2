#define BOOST_TEST_MODULE duration
#include "neuron/conformance/duration.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::conformance;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_CASE(units_are_ns_us_ms_and_s) {
    BOOST_TEST(parse_duration("7ns")->count() == 7);
    BOOST_TEST(parse_duration("1500us")->count() == 1'500'000);
    BOOST_TEST(parse_duration("250ms")->count() == 250'000'000);
    BOOST_TEST(parse_duration("2s")->count() == 2'000'000'000);
    BOOST_TEST(parse_duration("0s")->count() == 0);
}

BOOST_AUTO_TEST_CASE(anything_else_is_refused) {
    for (const auto* text : {"", "s", "2", "2 s", " 2s", "2sec", "-1s", "+1s", "1.5s", "1m", "2S", "0x10ms",
                             "9999999999999999999s", "9223372036854775808ns"}) {
        BOOST_TEST(!parse_duration(text).has_value(), "accepted '" << text << "'");
    }
}

BOOST_AUTO_TEST_CASE(the_largest_value_that_fits_is_accepted) {
    BOOST_TEST(parse_duration("9223372036854775807ns")->count() == INT64_MAX);
    BOOST_TEST(parse_duration("9223372036s").has_value());
    BOOST_TEST(!parse_duration("9223372037s").has_value());
}

BOOST_AUTO_TEST_CASE(formatting_picks_the_largest_exact_unit) {
    BOOST_TEST(format_duration(2s) == "2s");
    BOOST_TEST(format_duration(1500ms) == "1500ms");
    BOOST_TEST(format_duration(1500us) == "1500us");
    BOOST_TEST(format_duration(7ns) == "7ns");
    BOOST_TEST(format_duration(0ns) == "0ns");
    BOOST_TEST(format_seconds(1234ms) == "1.23s");
}
