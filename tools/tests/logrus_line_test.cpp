#define BOOST_TEST_MODULE logrus_line
// A logrus entry in its two forms, byte for byte: logfmt when stderr is not a
// terminal, the coloured line when it is; Go's quoting and RFC 3339 time.
#include "neuron/tools/logrus_line.h"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <ctime>

using namespace neuron::tools;
using namespace std::chrono_literals;

namespace {

logrus_entry no_device() {
    return {
        logrus_level::fatal, "Failed to load MLA system information", {{"error", "failed to discover Neuron devices"}}};
}

// 2026-11-28T15:40:00Z and a half.
std::chrono::system_clock::time_point capture_time() {
    return std::chrono::sys_days{std::chrono::year{2026} / 11 / 28} + 15h + 40min + 500ms;
}

std::string rfc3339_in(const char* zone) {
    ::setenv("TZ", zone, 1);
    ::tzset();
    return go_rfc3339(capture_time());
}

} // namespace

BOOST_AUTO_TEST_CASE(logfmt_line_is_the_tools_on_a_pipe) {
    BOOST_TEST(logrus_logfmt_line(no_device(), "2026-11-28T15:40:00Z") ==
               "time=\"2026-11-28T15:40:00Z\" level=fatal msg=\"Failed to load MLA system information\" "
               "error=\"failed to discover Neuron devices\"\n");
}

// The message has 37 characters: 7 of padding, the format's space, the field's space.
BOOST_AUTO_TEST_CASE(terminal_line_is_coloured_with_the_message_padded_to_44) {
    BOOST_TEST(logrus_terminal_line(no_device(), 0s) ==
               "\x1b[31mFATA\x1b[0m[0000] Failed to load MLA system information         "
               "\x1b[31merror\x1b[0m=\"failed to discover Neuron devices\"\n");
    const logrus_entry long_message{logrus_level::fatal, std::string(50, 'm'), {}};
    BOOST_TEST(logrus_terminal_line(long_message, 12s) == "\x1b[31mFATA\x1b[0m[0012] " + std::string(50, 'm') + " \n");
}

BOOST_AUTO_TEST_CASE(each_level_has_its_name_and_colour) {
    const auto terminal = [](logrus_level level) { return logrus_terminal_line({level, "m", {}}, 0s).substr(0, 13); };
    BOOST_TEST(terminal(logrus_level::panic) == "\x1b[31mPANI\x1b[0m");
    BOOST_TEST(terminal(logrus_level::error) == "\x1b[31mERRO\x1b[0m");
    BOOST_TEST(terminal(logrus_level::warning) == "\x1b[33mWARN\x1b[0m");
    BOOST_TEST(terminal(logrus_level::info) == "\x1b[36mINFO\x1b[0m");
    BOOST_TEST(terminal(logrus_level::debug) == "\x1b[37mDEBU\x1b[0m");
    BOOST_TEST(terminal(logrus_level::trace) == "\x1b[37mTRAC\x1b[0m");
    BOOST_TEST(logrus_logfmt_line({logrus_level::warning, "m", {}}, "t") == "time=t level=warning msg=m\n");
}

BOOST_AUTO_TEST_CASE(fields_follow_in_key_order_and_an_empty_message_is_left_out) {
    const logrus_entry entry{logrus_level::error, "", {{"path", "/sys/x"}, {"count", "3"}, {"empty", ""}}};
    BOOST_TEST(logrus_logfmt_line(entry, "t") == "time=t level=error count=3 empty= path=/sys/x\n");
    BOOST_TEST(logrus_terminal_line(entry, 0s) == "\x1b[31mERRO\x1b[0m[0000] " + std::string(44, ' ') +
                                                      "  \x1b[31mcount\x1b[0m=3 \x1b[31mempty\x1b[0m= "
                                                      "\x1b[31mpath\x1b[0m=/sys/x\n");
}

BOOST_AUTO_TEST_CASE(values_are_quoted_as_go_quotes_them) {
    const auto value = [](const std::string& v) {
        const auto line = logrus_logfmt_line({logrus_level::info, "", {{"v", v}}}, "t");
        return line.substr(line.find(" v=") + 3, line.size() - line.find(" v=") - 4);
    };
    BOOST_TEST(value("a-b.c_d/e@f^g+h09") == "a-b.c_d/e@f^g+h09");
    BOOST_TEST(value("") == "");
    BOOST_TEST(value("a:b") == "\"a:b\"");
    BOOST_TEST(value("say \"hi\" \\ now\n") == R"("say \"hi\" \\ now\n")");
    BOOST_TEST(value("\a\b\f\r\t\v") == R"("\a\b\f\r\t\v")");
    BOOST_TEST(value(std::string("\x01\x7f\0", 3)) == R"("\x01\x7f\x00")");
    BOOST_TEST(value("caf\xc3\xa9 \xf0\x9f\x98\x80") == "\"caf\xc3\xa9 \xf0\x9f\x98\x80\""); // printable: kept
    BOOST_TEST(value("\xc2\xa0\xc2\xad\xe2\x80\xa8") == R"("\u00a0\u00ad\u2028")");
    BOOST_TEST(value("\xee\x80\x80\xf4\x8f\xbf\xbd") == R"("\ue000\U0010fffd")");     // private use
    BOOST_TEST(value("\xff\xc0\x80\xed\xa0\x80") == R"("\xff\xc0\x80\xed\xa0\x80")"); // not UTF-8
}

BOOST_AUTO_TEST_CASE(time_is_rfc3339_in_the_local_zone) {
    BOOST_TEST(rfc3339_in("UTC0") == "2026-11-28T15:40:00Z");
    BOOST_TEST(rfc3339_in("CET-1") == "2026-11-28T16:40:00+01:00");
    BOOST_TEST(rfc3339_in("EST5") == "2026-11-28T10:40:00-05:00");
    BOOST_TEST(rfc3339_in("IST-5:30") == "2026-11-28T21:10:00+05:30");
}
