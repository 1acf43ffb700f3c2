#define BOOST_TEST_MODULE value_check
#include "neuron/conformance/value_check.h"

#include <boost/test/unit_test.hpp>

#include <cerrno>

using namespace neuron::conformance;

namespace {

std::optional<std::string> check(const value_check& c, const std::string& text,
                                 const std::optional<std::string>& previous = std::nullopt) {
    return check_value(c, {}, read_result{0, text}, previous ? std::optional(read_result{0, *previous}) : std::nullopt);
}

bool contains(const std::optional<std::string>& message, const std::string& part) {
    return message && message->find(part) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(equals_compares_every_byte) {
    value_check c;
    c.equals = text_template("2");
    BOOST_TEST(!check(c, "2"));
    BOOST_TEST(contains(check(c, "2\n"), R"(expected "2", got "2\n")"));
}

BOOST_AUTO_TEST_CASE(equals_expands_placeholders) {
    value_check c;
    c.equals = text_template("neuron{d}\n");
    BOOST_TEST(!check_value(c, {{"d", "4"}}, {0, "neuron4\n"}, std::nullopt));
}

BOOST_AUTO_TEST_CASE(matches_must_match_the_whole_text) {
    value_check c;
    c.matches = text_template("[0-9a-f]{16}\n");
    BOOST_TEST(!check(c, "00000000deadbeef\n"));
    BOOST_TEST(check(c, "00000000deadbeef\nx").has_value());
    BOOST_TEST(check(c, "00000000DEADBEEF\n").has_value());
}

BOOST_AUTO_TEST_CASE(numbers_are_the_drivers_llu_and_a_newline) {
    value_check c;
    c.number = text_template("18446744073709551615");
    BOOST_TEST(!check(c, "18446744073709551615\n"));
    for (const auto* bad :
         {"18446744073709551615", "+1\n", "-1\n", " 1\n", "1 \n", "\n", "0x1\n", "18446744073709551616\n"}) {
        BOOST_TEST(contains(check(c, bad), "expected a number and a newline"), "accepted '" << bad << "'");
    }
}

BOOST_AUTO_TEST_CASE(bounds_are_inclusive) {
    value_check c;
    c.at_least = text_template("2");
    c.at_most = text_template("4");
    BOOST_TEST(!check(c, "2\n"));
    BOOST_TEST(!check(c, "4\n"));
    BOOST_TEST(contains(check(c, "1\n"), "at least 2"));
    BOOST_TEST(contains(check(c, "5\n"), "at most 4"));
}

BOOST_AUTO_TEST_CASE(increased_by_wraps_as_a_u64) {
    value_check c;
    c.increased_by = text_template("3");
    BOOST_TEST(!check(c, "8\n", "5\n"));
    BOOST_TEST(!check(c, "1\n", "18446744073709551614\n"));
    BOOST_TEST(contains(check(c, "7\n", "5\n"), "expected 5 + 3 = 8, got 7"));
    BOOST_TEST(contains(check(c, "8\n"), "has not read this file before"));
}

BOOST_AUTO_TEST_CASE(unchanged_and_changed_compare_the_text) {
    value_check same;
    same.unchanged = true;
    BOOST_TEST(!check(same, "a\n", "a\n"));
    BOOST_TEST(contains(check(same, "b\n", "a\n"), "unchanged"));
    value_check other;
    other.changed = true;
    BOOST_TEST(!check(other, "b\n", "a\n"));
    BOOST_TEST(contains(check(other, "a\n", "a\n"), "expected a change"));
}

BOOST_AUTO_TEST_CASE(an_expected_error_needs_that_errno) {
    value_check c;
    c.error = ENOENT;
    BOOST_TEST(!check_value(c, {}, {ENOENT, ""}, std::nullopt));
    BOOST_TEST(contains(check_value(c, {}, {EACCES, ""}, std::nullopt), "fail with ENOENT, got EACCES"));
    BOOST_TEST(contains(check(c, "1\n"), R"(fail with ENOENT, got "1\n")"));
}

BOOST_AUTO_TEST_CASE(a_failed_read_fails_every_text_check) {
    value_check c;
    c.number = text_template("0");
    BOOST_TEST(contains(check_value(c, {}, {EACCES, ""}, std::nullopt), "the read failed with EACCES"));
}

BOOST_AUTO_TEST_CASE(control_characters_are_shown_escaped) {
    BOOST_TEST(quote_text("a\n\t\"\\\x01") == R"("a\n\t\"\\\x01")");
}

BOOST_AUTO_TEST_CASE(a_pattern_grown_by_its_values_is_bounded_before_compiling) {
    // The parser checks the pattern as written; a for_each value can still make it deep.
    value_check c;
    c.matches = text_template("x{p}");
    const auto deep = std::string(30'000, '(') + "a" + std::string(30'000, ')');
    BOOST_TEST(check_value(c, {{"p", deep}}, {0, "xa"}, std::nullopt).value_or("") ==
               "matches has 60002 characters; a pattern has at most 1024");
    BOOST_TEST(contains(check_value(c, {{"p", std::string(40, '(') + std::string(40, ')')}}, {0, "x"}, std::nullopt),
                        "matches nests groups deeper than 32 levels"));
    BOOST_TEST(!check_value(c, {{"p", "(a|b)+"}}, {0, "xab"}, std::nullopt));
}

BOOST_AUTO_TEST_CASE(numbers_take_their_placeholders_values) {
    value_check c;
    c.number = text_template("{n}");
    BOOST_TEST(!check_value(c, {{"n", "12"}}, {0, "12\n"}, std::nullopt));
    BOOST_TEST(*check_value(c, {{"n", "13"}}, {0, "12\n"}, std::nullopt) == "expected 13, got 12");
    BOOST_TEST(*check_value(c, {{"n", "x"}}, {0, "12\n"}, std::nullopt) == "number must be a whole number, not \"x\"");
}
