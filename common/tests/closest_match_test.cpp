#define BOOST_TEST_MODULE closest_match
#include "neuron/common/closest_match.h"

#include <boost/test/unit_test.hpp>

#include <vector>

using neuron::common::closest_match;

namespace {
const std::vector<std::string> options{"instance", "seed", "json", "reset-ms"};
}

BOOST_AUTO_TEST_CASE(a_typo_finds_the_option) {
    BOOST_TEST(closest_match("instnce", options).value_or("") == "instance");
    BOOST_TEST(closest_match("sed", options).value_or("") == "seed");
    BOOST_TEST(closest_match("reset_ms", options).value_or("") == "reset-ms");
}

BOOST_AUTO_TEST_CASE(an_unrelated_word_finds_nothing) {
    BOOST_TEST(!closest_match("frobnicate", options).has_value());
    BOOST_TEST(!closest_match("x", std::vector<std::string>{}).has_value());
}

BOOST_AUTO_TEST_CASE(swapped_neighbours_count_as_one_typo) {
    const std::vector<std::string> keys{"name", "inputs", "outputs"};
    BOOST_TEST(closest_match("nmae", keys).value_or("") == "name");
    BOOST_TEST(closest_match("ipnuts", keys).value_or("") == "inputs");
    BOOST_TEST(!closest_match("mnea", keys).has_value()); // two swaps are not one typo
}
