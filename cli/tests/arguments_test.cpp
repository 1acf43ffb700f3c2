#define BOOST_TEST_MODULE arguments
#include "arguments.h"
#include "usage_error.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace neuron::cli;

namespace {

argument_parser demo_parser() {
    argument_parser p("demo");
    p.flag("json", "print JSON")
        .option("instance", "NAME", "instance type", "trn1.2xlarge")
        .option("count", "N", "how many");
    return p;
}

argument_parser::result parse(std::vector<std::string> args) { return demo_parser().parse(args); }

bool message_contains(const std::exception& e, const std::string& text) {
    return std::string(e.what()).find(text) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_CASE(defaults_apply_when_an_option_is_absent) {
    const auto r = parse({});
    BOOST_TEST(r.value("instance") == "trn1.2xlarge");
    BOOST_TEST(!r.has("json"));
    BOOST_TEST(!r.has("count"));
    BOOST_CHECK_EXCEPTION(r.value("count"), usage_error,
                          [](const auto& e) { return message_contains(e, "--count is required"); });
}

BOOST_AUTO_TEST_CASE(values_come_separate_or_after_an_equals_sign) {
    const auto r = parse({"--instance", "inf2.xlarge", "--count=7", "--json"});
    BOOST_TEST(r.value("instance") == "inf2.xlarge");
    BOOST_TEST(r.unsigned_value("count") == 7u);
    BOOST_TEST(r.has("json"));
}

BOOST_AUTO_TEST_CASE(the_last_occurrence_wins) {
    BOOST_TEST(parse({"--count", "1", "--count", "2"}).unsigned_value("count") == 2u);
}

BOOST_AUTO_TEST_CASE(an_unknown_option_suggests_the_near_one) {
    BOOST_CHECK_EXCEPTION(parse({"--jsn"}), usage_error, [](const auto& e) {
        return message_contains(e, "unknown option '--jsn'; did you mean '--json'?");
    });
    BOOST_CHECK_EXCEPTION(parse({"--frobnicate"}), usage_error, [](const auto& e) {
        return message_contains(e, "unknown option '--frobnicate'") && !message_contains(e, "did you mean");
    });
}

BOOST_AUTO_TEST_CASE(malformed_command_lines_are_refused) {
    BOOST_CHECK_EXCEPTION(parse({"--instance"}), usage_error,
                          [](const auto& e) { return message_contains(e, "needs a value (NAME)"); });
    BOOST_CHECK_EXCEPTION(parse({"--json=yes"}), usage_error,
                          [](const auto& e) { return message_contains(e, "takes no value"); });
    BOOST_CHECK_EXCEPTION(parse({"stray"}), usage_error,
                          [](const auto& e) { return message_contains(e, "unexpected argument 'stray'"); });
}

BOOST_AUTO_TEST_CASE(help_is_requested_not_an_error) {
    BOOST_CHECK_EXCEPTION(parse({"--help"}), help_requested, [](const auto& e) {
        return message_contains(e, "--instance NAME") && message_contains(e, "(default: trn1.2xlarge)");
    });
}

BOOST_AUTO_TEST_CASE(unsigned_numbers_are_strict) {
    BOOST_TEST(parse_unsigned("0", "n") == 0u);
    BOOST_TEST(parse_unsigned("0x1f", "n") == 31u);
    BOOST_TEST(parse_unsigned("18446744073709551615", "n") == UINT64_MAX);
    for (const char* bad : {"", "-1", "+1", "1.5", "12abc", "0x", " 1", "0xg"}) {
        BOOST_TEST_CONTEXT("'" << bad << "'") {
            BOOST_CHECK_EXCEPTION(parse_unsigned(bad, "--count"), usage_error, [&](const auto& e) {
                return message_contains(e, std::string("--count '") + bad + "'");
            });
        }
    }
    BOOST_CHECK_EXCEPTION(parse_unsigned("18446744073709551616", "--count"), usage_error,
                          [](const auto& e) { return message_contains(e, "too large"); });
}

BOOST_AUTO_TEST_CASE(real_numbers_are_strict) {
    argument_parser p("serve");
    p.option("rtf", "X", "real-time factor");
    BOOST_TEST(p.parse(std::vector<std::string>{"--rtf", "0.5"}).number_value("rtf") == 0.5);
    BOOST_CHECK_THROW(p.parse(std::vector<std::string>{"--rtf", "fast"}).number_value("rtf"), usage_error);
    BOOST_CHECK_THROW(p.parse(std::vector<std::string>{"--rtf", "inf"}).number_value("rtf"), usage_error);
}
