#define BOOST_TEST_MODULE wire
#include "neuron/protocol/wire.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace neuron::protocol;

namespace {

using bytes = std::vector<std::uint8_t>;

// True when `e` is a protocol_error whose message contains `text`.
auto says(std::string text) {
    return [text = std::move(text)](const protocol_error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

bytes header_bytes(std::uint32_t magic, std::uint16_t version, std::uint16_t type, std::uint32_t id,
                   std::uint32_t body_size) {
    wire_writer w;
    encode_header(w, {magic, version, type, id, body_size});
    return w.bytes();
}

bytes message_with_body(std::size_t body_size) {
    auto m = header_bytes(wire_magic, wire_version, 7, 9, static_cast<std::uint32_t>(body_size));
    m.resize(header_size + body_size, 0xab);
    return m;
}

} // namespace

BOOST_AUTO_TEST_CASE(integers_are_little_endian_of_their_width) {
    wire_writer w;
    w.u8(0x01);
    w.u16(0x0302);
    w.u32(0x07060504);
    w.u64(0x0f0e0d0c0b0a0908ull);
    const bytes expected{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    BOOST_TEST(w.bytes() == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_field_type_round_trips) {
    wire_writer w;
    w.u8(0xfe);
    w.u16(0xbeef);
    w.u32(0xdeadbeef);
    w.u64(0x0123456789abcdefull);
    w.i32(-2);
    w.i32(std::numeric_limits<std::int32_t>::min());
    w.i64(-3);
    w.i64(std::numeric_limits<std::int64_t>::min());
    w.f64(-1.25e300);
    w.f64(std::numeric_limits<double>::denorm_min());
    w.boolean(true);
    w.boolean(false);
    w.string("h\xc3\xa9llo");
    w.string(std::string("nul\0inside", 10));
    w.string("");
    const std::uint8_t raw[] = {9, 8, 7};
    w.raw(raw, sizeof(raw));

    wire_reader r(w.bytes());
    BOOST_TEST(r.u8("a") == 0xfe);
    BOOST_TEST(r.u16("b") == 0xbeef);
    BOOST_TEST(r.u32("c") == 0xdeadbeefu);
    BOOST_TEST(r.u64("d") == 0x0123456789abcdefull);
    BOOST_TEST(r.i32("e") == -2);
    BOOST_TEST(r.i32("f") == std::numeric_limits<std::int32_t>::min());
    BOOST_TEST(r.i64("g") == -3);
    BOOST_TEST(r.i64("h") == std::numeric_limits<std::int64_t>::min());
    BOOST_TEST(r.f64("i") == -1.25e300);
    BOOST_TEST(r.f64("j") == std::numeric_limits<double>::denorm_min());
    BOOST_TEST(r.boolean("k") == true);
    BOOST_TEST(r.boolean("l") == false);
    BOOST_TEST(r.string("m") == "h\xc3\xa9llo");
    BOOST_TEST(r.string("n") == std::string("nul\0inside", 10));
    BOOST_TEST(r.string("o") == "");
    BOOST_TEST(r.remaining() == 3u);
    BOOST_TEST(r.rest() == bytes({9, 8, 7}), boost::test_tools::per_element());
    BOOST_TEST(r.remaining() == 0u);
    BOOST_CHECK_NO_THROW(r.expect_end("all"));
}

BOOST_AUTO_TEST_CASE(special_doubles_keep_their_bits) {
    wire_writer w;
    w.f64(std::numeric_limits<double>::quiet_NaN());
    w.f64(-0.0);
    w.f64(std::numeric_limits<double>::infinity());
    wire_reader r(w.bytes());
    BOOST_TEST(std::isnan(r.f64("nan")));
    const auto negative_zero = r.f64("zero");
    BOOST_TEST(negative_zero == 0.0);
    BOOST_TEST(std::signbit(negative_zero));
    BOOST_TEST(r.f64("inf") == std::numeric_limits<double>::infinity());
}

BOOST_AUTO_TEST_CASE(a_string_is_a_u32_length_then_its_bytes) {
    wire_writer w;
    w.string("ab");
    BOOST_TEST(w.bytes() == bytes({2, 0, 0, 0, 'a', 'b'}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reading_past_the_end_names_the_field) {
    const bytes three{1, 2, 3};
    {
        wire_reader r(three);
        BOOST_CHECK_EXCEPTION(r.u32("session.count"), protocol_error, says("session.count"));
    }
    {
        wire_reader r(three);
        BOOST_CHECK_EXCEPTION(r.u64("a.u64"), protocol_error, says("a.u64"));
    }
    {
        wire_reader r(three);
        r.u16("first");
        BOOST_CHECK_EXCEPTION(r.u16("second"), protocol_error, says("second"));
        BOOST_TEST(r.u8("third") == 3); // the failed read consumed nothing
        BOOST_CHECK_EXCEPTION(r.u8("fourth"), protocol_error, says("message too short reading fourth"));
        BOOST_CHECK_EXCEPTION(r.boolean("flag"), protocol_error, says("flag"));
        BOOST_CHECK_EXCEPTION(r.f64("ratio"), protocol_error, says("ratio"));
        BOOST_CHECK_EXCEPTION(r.i32("signed"), protocol_error, says("signed"));
        BOOST_CHECK_EXCEPTION(r.i64("signed64"), protocol_error, says("signed64"));
    }
    {
        wire_reader empty(nullptr, 0);
        BOOST_CHECK_EXCEPTION(empty.string("label"), protocol_error, says("label"));
    }
}

BOOST_AUTO_TEST_CASE(a_string_longer_than_its_message_names_the_field) {
    wire_writer w;
    w.u32(10);
    w.raw("abc", 3);
    wire_reader r(w.bytes());
    BOOST_CHECK_EXCEPTION(r.string("hello.label"), protocol_error, says("message too short reading hello.label"));
}

BOOST_AUTO_TEST_CASE(oversized_strings_are_refused_before_reading) {
    wire_writer w;
    w.u32(static_cast<std::uint32_t>(max_string_size + 1));
    wire_reader r(w.bytes());
    BOOST_CHECK_EXCEPTION(r.string("model.bytes"), protocol_error, says("oversized string in model.bytes"));

    wire_writer huge;
    huge.u32(0xffffffffu);
    wire_reader r2(huge.bytes());
    BOOST_CHECK_EXCEPTION(r2.string("x"), protocol_error, says("oversized string in x"));
}

BOOST_AUTO_TEST_CASE(a_string_of_the_largest_size_is_read) {
    wire_writer w;
    w.string(std::string(max_string_size, 'z'));
    wire_reader r(w.bytes());
    BOOST_TEST(r.string("big").size() == max_string_size);
}

BOOST_AUTO_TEST_CASE(booleans_other_than_0_and_1_are_refused) {
    for (std::uint8_t v : {2, 0x80, 0xff}) {
        const bytes b{v};
        wire_reader r(b);
        BOOST_CHECK_EXCEPTION(r.boolean("open_stream.flag"), protocol_error, says("bad boolean in open_stream.flag"));
    }
}

BOOST_AUTO_TEST_CASE(expect_end_refuses_trailing_bytes) {
    const bytes b{1, 2, 3, 4, 5};
    wire_reader r(b);
    r.u16("x");
    BOOST_CHECK_EXCEPTION(r.expect_end("allocate"), protocol_error, says("allocate: 3 unexpected trailing bytes"));
    r.u8("y");
    BOOST_CHECK_EXCEPTION(r.expect_end("allocate"), protocol_error, says("2 unexpected trailing bytes"));
    r.u16("z");
    BOOST_CHECK_NO_THROW(r.expect_end("allocate"));
}

BOOST_AUTO_TEST_CASE(a_header_round_trips) {
    const auto m = message_with_body(5);
    BOOST_TEST(m.size() == header_size + 5);
    const auto h = decode_header(m.data(), m.size());
    BOOST_TEST(h.magic == wire_magic);
    BOOST_TEST(h.version == wire_version);
    BOOST_TEST(h.type == 7);
    BOOST_TEST(h.request_id == 9u);
    BOOST_TEST(h.body_size == 5u);
}

BOOST_AUTO_TEST_CASE(the_magic_reads_nemu_in_memory) {
    const auto m = header_bytes(wire_magic, wire_version, 1, 2, 0);
    BOOST_TEST(std::string(m.begin(), m.begin() + 4) == "NEMU");
    BOOST_TEST(m.size() == header_size);
}

BOOST_AUTO_TEST_CASE(a_datagram_shorter_than_a_header_is_refused) {
    const auto m = header_bytes(wire_magic, wire_version, 1, 2, 0);
    for (std::size_t n = 0; n < header_size; ++n) {
        BOOST_CHECK_EXCEPTION(decode_header(m.data(), n), protocol_error, says("shorter than a message header"));
    }
    BOOST_CHECK_NO_THROW(decode_header(m.data(), header_size));
}

BOOST_AUTO_TEST_CASE(a_bad_magic_is_refused) {
    auto m = header_bytes(0x46464e45 /* "ENFF" */, wire_version, 1, 2, 0);
    BOOST_CHECK_EXCEPTION(decode_header(m.data(), m.size()), protocol_error, says("bad magic"));
    m = header_bytes(wire_magic ^ 0x01000000u, wire_version, 1, 2, 0);
    BOOST_CHECK_EXCEPTION(decode_header(m.data(), m.size()), protocol_error, says("bad magic"));
}

BOOST_AUTO_TEST_CASE(another_version_is_refused_naming_both_versions) {
    for (std::uint16_t version :
         {std::uint16_t{0}, std::uint16_t{wire_version - 1}, std::uint16_t{wire_version + 1}, std::uint16_t{0xffff}}) {
        const auto m = header_bytes(wire_magic, version, 1, 2, 0);
        BOOST_CHECK_EXCEPTION(decode_header(m.data(), m.size()), protocol_error,
                              says("protocol version " + std::to_string(version) + " is not supported"));
        BOOST_CHECK_EXCEPTION(decode_header(m.data(), m.size()), protocol_error,
                              says("speaks " + std::to_string(wire_version)));
    }
}

BOOST_AUTO_TEST_CASE(a_body_size_that_does_not_match_the_datagram_is_refused) {
    auto m = message_with_body(4);
    BOOST_CHECK_EXCEPTION(decode_header(m.data(), m.size() - 1), protocol_error, says("does not match"));
    m.push_back(0);
    BOOST_CHECK_EXCEPTION(decode_header(m.data(), m.size()), protocol_error, says("does not match"));
    const auto claims_more = header_bytes(wire_magic, wire_version, 1, 2, 0xffffffffu);
    BOOST_CHECK_EXCEPTION(decode_header(claims_more.data(), claims_more.size()), protocol_error,
                          says("does not match"));
}

BOOST_AUTO_TEST_CASE(an_oversized_body_is_refused_even_when_it_arrived_whole) {
    const auto largest = message_with_body(max_body_size);
    BOOST_CHECK_NO_THROW(decode_header(largest.data(), largest.size()));
    const auto too_large = message_with_body(max_body_size + 1);
    BOOST_CHECK_EXCEPTION(decode_header(too_large.data(), too_large.size()), protocol_error, says("too large"));
}
