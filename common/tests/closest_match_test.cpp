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

BOOST_AUTO_TEST_CASE(a_word_too_long_to_be_a_name_gets_no_suggestion) {
    // Both sides may come from a hostile file; comparing them costs the product of their lengths.
    const std::string word(129, 'a');
    BOOST_TEST(!closest_match(word, std::vector<std::string>{word + "b"}).has_value());
    BOOST_TEST(closest_match(std::string(128, 'a'), std::vector<std::string>{std::string(127, 'a')}).has_value());
}

BOOST_AUTO_TEST_CASE(candidates_far_longer_or_shorter_are_not_compared) {
    const std::vector<std::string> keys{"name", std::string(1'000'000, 'n')};
    BOOST_TEST(closest_match("nmae", keys).value_or("") == "name");
}
