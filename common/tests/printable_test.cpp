#define BOOST_TEST_MODULE printable
#include "neuron/common/printable.h"

#include <boost/test/unit_test.hpp>

#include <string>

using neuron::common::printable;
using neuron::common::printable_lines;
using neuron::common::printable_message;

BOOST_AUTO_TEST_CASE(plain_text_and_utf8_pass_unchanged) {
    BOOST_TEST(printable("float32 [2, 3] {x}") == "float32 [2, 3] {x}");
    BOOST_TEST(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

BOOST_AUTO_TEST_CASE(control_characters_become_escapes) {
    BOOST_TEST(printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
    BOOST_TEST(printable(std::string("\x1b[2J\x7f\0z", 7)) == "\\x1b[2J\\x7f\\x00z");
}

BOOST_AUTO_TEST_CASE(a_backslash_is_doubled_so_escapes_stay_unambiguous) {
    BOOST_TEST(printable("a\\nb") == "a\\\\nb");
}

BOOST_AUTO_TEST_CASE(c1_controls_and_xml_noncharacters_are_escaped) {
    BOOST_TEST(printable("\xc2\x9b"
                         "1m") == "\\xc2\\x9b1m");
    BOOST_TEST(printable("\xc2\xa0") == "\xc2\xa0"); // U+00A0 is printable
    BOOST_TEST(printable("\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd") == "\\xef\\xbf\\xbe\\xef\\xbf\\xbf\xef\xbf\xbd");
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_utf8_are_escaped_one_by_one) {
    BOOST_TEST(printable("\xff") == "\\xff");
    BOOST_TEST(printable("\xc3") == "\\xc3");                            // cut short
    BOOST_TEST(printable("\xc0\xaf") == "\\xc0\\xaf");                   // overlong '/'
    BOOST_TEST(printable("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");          // overlong
    BOOST_TEST(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");          // a surrogate
    BOOST_TEST(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80"); // above U+10FFFF
    BOOST_TEST(printable("\xe2\x82x") == "\\xe2\\x82x");
}

BOOST_AUTO_TEST_CASE(a_long_text_is_cut_with_its_size) {
    BOOST_TEST(printable(std::string(10, 'a'), 4) == "aaaa...(10 bytes)");
    BOOST_TEST(printable("abc", 3) == "abc");
    // A cut does not split a character: "\xc3\xa9" stays whole or goes.
    BOOST_TEST(printable("a\xc3\xa9z", 2) == "a...(4 bytes)");
}

BOOST_AUTO_TEST_CASE(a_message_keeps_its_backslashes_and_escapes_the_rest) {
    const auto quoted = printable("x\ny\\");
    BOOST_TEST(printable_message("f:1:2: unknown key '" + quoted + "'") == "f:1:2: unknown key 'x\\ny\\\\'");
    BOOST_TEST(printable_message("two\nlines\x1b") == "two\\nlines\\x1b");
}

BOOST_AUTO_TEST_CASE(lines_keep_their_newlines_and_escape_the_rest) {
    BOOST_TEST(printable_lines("usage: x\n  \x1b[2J\tz\n") == "usage: x\n  \\x1b[2J\\tz\n");
    BOOST_TEST(printable_lines("one\r\n\xff") == "one\\r\n\\xff");
    BOOST_TEST(printable_lines("") == "");
}
