#define BOOST_TEST_MODULE kernel_parse
#include <boost/test/unit_test.hpp>

#include "neuron/sysfs/kernel_parse.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

using namespace neuron::sysfs;
using namespace std::string_view_literals;

namespace {
constexpr auto i64_min = std::numeric_limits<std::int64_t>::min();
constexpr auto i64_max = std::numeric_limits<std::int64_t>::max();
constexpr auto u64_max = std::numeric_limits<std::uint64_t>::max();

// Printable for failure messages.
std::string shown(std::string_view s) {
    std::string out;
    for (const char c : s) out += c == '\n' ? std::string("\\n") : c == '\0' ? std::string("\\0") : std::string(1, c);
    return '"' + out + '"';
}

// What the parse makes of a text, as a string: the number or "rejected".
std::string ll(std::string_view text) {
    const auto v = parse_kstrtoll(text);
    return v ? std::to_string(*v) : "rejected";
}
std::string ull(std::string_view text) {
    const auto v = parse_kstrtoull(text);
    return v ? std::to_string(*v) : "rejected";
}
} // namespace

// --- kstrtoll ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(kstrtoll_reads_plain_and_signed_decimals) {
    BOOST_TEST(ll("0") == "0");
    BOOST_TEST(ll("42") == "42");
    BOOST_TEST(ll("-1") == "-1");
    BOOST_TEST(ll("+0") == "0");
    BOOST_TEST(ll("+17") == "17");
    BOOST_TEST(ll("-0") == "0");
    BOOST_TEST(ll("007") == "7");
}

BOOST_AUTO_TEST_CASE(kstrtoll_accepts_exactly_one_trailing_newline) {
    BOOST_TEST(ll("0\n") == "0");
    BOOST_TEST(ll("-1\n") == "-1");
    BOOST_TEST(!parse_kstrtoll("0\n\n").has_value());
    BOOST_TEST(!parse_kstrtoll("\n").has_value());
    BOOST_TEST(!parse_kstrtoll("\n0").has_value());
}

BOOST_AUTO_TEST_CASE(kstrtoll_rejects_what_the_kernel_rejects) {
    for (const auto text : {""sv, " 0"sv, "0 "sv, "0 \n"sv, "- 1"sv, "+"sv, "-"sv, "+-1"sv, "-+1"sv, "--1"sv, "0x10"sv,
                            "1e3"sv, "1.0"sv, "abc"sv, "12a"sv, "\t1"sv, "1\r\n"sv}) {
        BOOST_TEST(!parse_kstrtoll(text).has_value(), shown(text));
    }
}

BOOST_AUTO_TEST_CASE(kstrtoll_range_is_exactly_int64) {
    BOOST_TEST(ll("9223372036854775807") == std::to_string(i64_max));
    BOOST_TEST(ll("-9223372036854775808") == std::to_string(i64_min));
    BOOST_TEST(!parse_kstrtoll("9223372036854775808").has_value());
    BOOST_TEST(!parse_kstrtoll("-9223372036854775809").has_value());
    BOOST_TEST(!parse_kstrtoll("18446744073709551615").has_value());
    BOOST_TEST(!parse_kstrtoll("-18446744073709551615").has_value());
    BOOST_TEST(!parse_kstrtoll("99999999999999999999").has_value());
}

// --- kstrtoull --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(kstrtoull_reads_unsigned_decimals) {
    BOOST_TEST(ull("0") == "0");
    BOOST_TEST(ull("150000") == "150000");
    BOOST_TEST(ull("+1000") == "1000");
    BOOST_TEST(ull("1000\n") == "1000");
    BOOST_TEST(ull("18446744073709551615") == std::to_string(u64_max));
}

BOOST_AUTO_TEST_CASE(kstrtoull_refuses_signs_overflow_and_junk) {
    for (const auto text : {""sv, "-1"sv, "-0"sv, "18446744073709551616"sv, "99999999999999999999"sv, "0x10"sv, " 1"sv,
                            "1 "sv, "1\n\n"sv, "\n"sv, "++1"sv}) {
        BOOST_TEST(!parse_kstrtoull(text).has_value(), shown(text));
    }
}

// --- store_text -------------------------------------------------------------

BOOST_AUTO_TEST_CASE(store_text_passes_short_writes_unchanged) {
    BOOST_TEST(store_text("0\n") == "0\n");
    BOOST_TEST(store_text("") == "");
}

BOOST_AUTO_TEST_CASE(store_text_keeps_at_most_one_page) {
    BOOST_TEST(sysfs_page_size == 4096u);
    const std::string page(4096, '7');
    BOOST_TEST(store_text(page).size() == 4096u);
    const std::string longer = std::string(4096, 'a') + "tail";
    const auto kept = store_text(longer);
    BOOST_TEST(kept.size() == 4096u);
    BOOST_TEST(kept == std::string(4096, 'a'));
}

BOOST_AUTO_TEST_CASE(store_text_stops_at_the_first_nul) {
    BOOST_TEST(store_text("0\0junk"sv) == "0");
    BOOST_TEST(store_text("\0"sv) == "");
    BOOST_TEST(store_text("on\n\0\0"sv) == "on\n");
}

BOOST_AUTO_TEST_CASE(store_text_truncates_before_looking_for_a_nul) {
    // A NUL past the first page is never seen.
    std::string longer(4096, 'x');
    longer += '\0';
    longer += "y";
    BOOST_TEST(store_text(longer).size() == 4096u);
}

// --- sysfs_streq ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(streq_ignores_one_trailing_newline_on_either_side) {
    BOOST_TEST(sysfs_streq("on", "on"));
    BOOST_TEST(sysfs_streq("on\n", "on"));
    BOOST_TEST(sysfs_streq("on", "on\n"));
    BOOST_TEST(sysfs_streq("on\n", "on\n"));
    BOOST_TEST(sysfs_streq("", "\n"));
    BOOST_TEST(sysfs_streq("", ""));
}

BOOST_AUTO_TEST_CASE(streq_rejects_other_differences) {
    BOOST_TEST(!sysfs_streq("on\n\n", "on"));
    BOOST_TEST(!sysfs_streq("on ", "on"));
    BOOST_TEST(!sysfs_streq(" on", "on"));
    BOOST_TEST(!sysfs_streq("ON", "on"));
    BOOST_TEST(!sysfs_streq("o", "on"));
    BOOST_TEST(!sysfs_streq("auto", "on"));
    BOOST_TEST(!sysfs_streq("\n", "on"));
}

BOOST_AUTO_TEST_CASE(streq_treats_newline_then_end_as_the_end_like_the_kernel) {
    // lib/string.c sysfs_streq walks both strings while they agree, then
    // accepts when one has ended and the other has only "\n" left. So
    // "on\n\n" equals "on\n": after the common "on\n", "\n" is left on one
    // side and nothing on the other.
    BOOST_TEST(sysfs_streq("on\n\n", "on\n"));
    BOOST_TEST(sysfs_streq("on\n", "on\n\n"));
}
