#define BOOST_TEST_MODULE message_codec
// The generic encoder and decoder of described messages (message_codec.h),
// on messages of this test's own: every field kind, errors naming the
// message and field, nested structs, vector counts and the validate() hook.
#include "neuron/protocol/message_codec.h"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace toy {

using neuron::protocol::enum_range;

// A range that starts above 0 and a 16-bit one, unlike the protocol's own.
enum class colour : std::uint8_t { red = 1, green = 2, blue = 3 };
constexpr enum_range<colour> wire_range(colour) { return {"colour", colour::red, colour::blue}; }
enum class wide : std::uint16_t { low = 0, high = 0x1234 };
constexpr enum_range<wide> wire_range(wide) { return {"wide thing", wide::low, wide::high}; }
// An enum with no wire_range is not a field type.
enum class unranged : std::uint8_t { a };

} // namespace toy

using namespace neuron::protocol;

namespace {

using bytes = std::vector<std::uint8_t>;

struct scalars {
    std::uint8_t a = 0;
    std::uint16_t b = 0;
    std::uint32_t c = 0;
    std::uint64_t d = 0;
    std::int32_t e = 0;
    std::int64_t f = 0;
    double g = 0;
    bool h = false;
    std::string i;
    toy::colour j = toy::colour::red;
    toy::wide k = toy::wide::low;
    static constexpr const char* wire_name = "scalars";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("a", m.a);
        v("b", m.b);
        v("c", m.c);
        v("d", m.d);
        v("e", m.e);
        v("f", m.f);
        v("g", m.g);
        v("h", m.h);
        v("i", m.i);
        v("j", m.j);
        v("k", m.k);
    }
};

struct point {
    std::int32_t x = 0;
    std::int32_t y = 0;
    static constexpr const char* wire_name = "point";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("x", m.x);
        v("y", m.y);
    }
    void validate() const {
        if (x > 100) throw protocol_error("point.x beyond 100");
    }
};

struct path {
    std::string name;
    std::vector<point> points;
    std::vector<std::uint16_t> weights{7, 7}; // a default the decoder must replace
    point end;
    static constexpr const char* wire_name = "path";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("name", m.name);
        v("points", m.points, max_count{3});
        v("weights", m.weights, max_count{2});
        v("end", m.end);
    }
    void validate() const {
        if (points.size() == 1) throw protocol_error("path: one point is not a path");
    }
};

static_assert(described_message<scalars> && described_message<path>);
static_assert(!described_message<int> && !described_message<std::string>);
static_assert(wire_enum<toy::colour> && wire_enum<toy::wide>);
static_assert(!wire_enum<toy::unranged> && !wire_enum<int>);

template <typename T>
bytes encoded(const T& m) {
    wire_writer w;
    encode_fields(w, m);
    return w.bytes();
}

template <typename T>
T decoded(const bytes& b) {
    const bytes copy(b); // its own allocation, so a sanitizer sees any read past it
    wire_reader in(copy);
    auto m = decode_fields<T>(in);
    in.expect_end(T::wire_name);
    return m;
}

auto says(std::string text) {
    return [text = std::move(text)](const protocol_error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

scalars sample_scalars() {
    return {0xab,
            0xbeef,
            0xdeadbeef,
            0x0123456789abcdefull,
            std::numeric_limits<std::int32_t>::min(),
            -2,
            -0.0,
            true,
            std::string("a\0b", 3),
            toy::colour::blue,
            toy::wide::high};
}

path sample_path() { return {"p", {{1, -1}, {2, -2}}, {9, 10}, {3, -3}}; }

} // namespace

BOOST_AUTO_TEST_CASE(each_field_is_written_as_the_wire_writer_writes_its_type) {
    const auto m = sample_scalars();
    wire_writer w;
    w.u8(m.a);
    w.u16(m.b);
    w.u32(m.c);
    w.u64(m.d);
    w.i32(m.e);
    w.i64(m.f);
    w.f64(m.g);
    w.boolean(m.h);
    w.string(m.i);
    w.u8(3);
    w.u16(0x1234);
    BOOST_TEST(encoded(m) == w.bytes(), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(each_field_decodes_back) {
    const auto m = decoded<scalars>(encoded(sample_scalars()));
    BOOST_TEST(m.a == 0xab);
    BOOST_TEST(m.b == 0xbeef);
    BOOST_TEST(m.c == 0xdeadbeefu);
    BOOST_TEST(m.d == 0x0123456789abcdefull);
    BOOST_TEST(m.e == std::numeric_limits<std::int32_t>::min());
    BOOST_TEST(m.f == -2);
    BOOST_TEST(m.g == 0.0);
    BOOST_TEST(std::signbit(m.g));
    BOOST_TEST(m.h);
    BOOST_TEST(m.i == std::string("a\0b", 3));
    BOOST_TEST(static_cast<int>(m.j) == static_cast<int>(toy::colour::blue));
    BOOST_TEST(static_cast<int>(m.k) == 0x1234);
}

BOOST_AUTO_TEST_CASE(a_nan_keeps_its_bits) {
    auto m = sample_scalars();
    std::uint64_t bits = 0x7ff8000000000123ull;
    std::memcpy(&m.g, &bits, sizeof(bits));
    const auto b = encoded(m);
    BOOST_TEST(encoded(decoded<scalars>(b)) == b, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_short_read_names_the_message_and_field) {
    const auto b = encoded(sample_scalars());
    const auto cut = [&](std::size_t n) { return bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n)); };
    BOOST_CHECK_EXCEPTION(decoded<scalars>(cut(0)), protocol_error, says("message too short reading scalars.a"));
    BOOST_CHECK_EXCEPTION(decoded<scalars>(cut(2)), protocol_error, says("message too short reading scalars.b"));
    BOOST_CHECK_EXCEPTION(decoded<scalars>(cut(b.size() - 3)), protocol_error,
                          says("message too short reading scalars.j"));
    BOOST_CHECK_EXCEPTION(decoded<scalars>(cut(b.size() - 1)), protocol_error,
                          says("message too short reading scalars.k"));
}

BOOST_AUTO_TEST_CASE(a_boolean_beyond_1_is_refused) {
    auto b = encoded(sample_scalars());
    const std::size_t at = 1 + 2 + 4 + 8 + 4 + 8 + 8;
    BOOST_TEST_REQUIRE(b[at] == 1);
    b[at] = 2;
    BOOST_CHECK_EXCEPTION(decoded<scalars>(b), protocol_error, says("bad boolean in scalars.h"));
}

BOOST_AUTO_TEST_CASE(an_oversized_string_is_refused_by_its_name) {
    auto b = encoded(sample_scalars());
    const std::size_t at = 1 + 2 + 4 + 8 + 4 + 8 + 8 + 1;
    const std::uint32_t huge = max_string_size + 1;
    std::memcpy(&b[at], &huge, 4);
    BOOST_CHECK_EXCEPTION(decoded<scalars>(b), protocol_error, says("oversized string in scalars.i"));
}

BOOST_AUTO_TEST_CASE(enum_values_outside_their_range_are_refused) {
    const auto b = encoded(sample_scalars());
    const std::size_t colour_at = b.size() - 3;
    for (const std::uint8_t value : {0, 4, 0xff}) {
        auto bad = b;
        bad[colour_at] = value;
        BOOST_CHECK_EXCEPTION(decoded<scalars>(bad), protocol_error,
                              says("scalars: unknown colour " + std::to_string(value) + " in scalars.j"));
    }
    for (const std::uint16_t value : {0x1235, 0xffff}) {
        auto bad = b;
        std::memcpy(&bad[b.size() - 2], &value, 2);
        BOOST_CHECK_EXCEPTION(decoded<scalars>(bad), protocol_error,
                              says("scalars: unknown wide thing " + std::to_string(value) + " in scalars.k"));
    }
    auto edge = b;
    edge[colour_at] = 1;
    edge[b.size() - 2] = 0;
    edge[b.size() - 1] = 0;
    const auto m = decoded<scalars>(edge);
    BOOST_TEST(static_cast<int>(m.j) == 1);
    BOOST_TEST(static_cast<int>(m.k) == 0);
}

BOOST_AUTO_TEST_CASE(vectors_and_nested_structs_round_trip) {
    wire_writer w;
    w.string("p");
    w.u32(2);
    w.i32(1);
    w.i32(-1);
    w.i32(2);
    w.i32(-2);
    w.u32(2);
    w.u16(9);
    w.u16(10);
    w.i32(3);
    w.i32(-3);
    BOOST_TEST(encoded(sample_path()) == w.bytes(), boost::test_tools::per_element());
    const auto m = decoded<path>(w.bytes());
    BOOST_TEST(m.name == "p");
    BOOST_TEST_REQUIRE(m.points.size() == 2u);
    BOOST_TEST(m.points[1].x == 2);
    BOOST_TEST(m.points[1].y == -2);
    BOOST_TEST(m.weights == std::vector<std::uint16_t>({9, 10}), boost::test_tools::per_element());
    BOOST_TEST(m.end.y == -3);
}

BOOST_AUTO_TEST_CASE(a_decoded_vector_replaces_the_default) {
    auto p = sample_path();
    p.weights.clear();
    BOOST_TEST(decoded<path>(encoded(p)).weights.empty());
}

BOOST_AUTO_TEST_CASE(a_vector_count_over_its_maximum_is_refused_before_its_entries) {
    auto p = sample_path();
    p.points.resize(3);
    BOOST_CHECK_NO_THROW(decoded<path>(encoded(p)));
    p.points.resize(4);
    BOOST_CHECK_EXCEPTION(decoded<path>(encoded(p)), protocol_error,
                          says("path: 4 entries in path.points, more than 3"));
    wire_writer w; // a count with nothing behind it
    w.string("p");
    w.u32(0xffffffff);
    BOOST_CHECK_EXCEPTION(decoded<path>(w.bytes()), protocol_error,
                          says("path: 4294967295 entries in path.points, more than 3"));
}

BOOST_AUTO_TEST_CASE(short_vectors_name_their_count_or_their_entries) {
    wire_writer w;
    w.string("p");
    w.u16(0);
    BOOST_CHECK_EXCEPTION(decoded<path>(w.bytes()), protocol_error,
                          says("message too short reading path.points count"));
    w.u16(0); // points: 0
    w.u32(2);
    w.u16(1);
    BOOST_CHECK_EXCEPTION(decoded<path>(w.bytes()), protocol_error, says("message too short reading path.weights"));
}

BOOST_AUTO_TEST_CASE(a_nested_struct_names_itself_in_errors) {
    auto b = encoded(sample_path());
    b.pop_back(); // (not resize(size() - 2): g++ 12 at -O1 takes that for an underflow)
    b.pop_back();
    BOOST_CHECK_EXCEPTION(decoded<path>(b), protocol_error, says("message too short reading point.y"));
}

BOOST_AUTO_TEST_CASE(validate_runs_after_decoding_nested_structs_too) {
    auto p = sample_path();
    p.end.x = 101;
    const auto b = encoded(p); // encoding does not validate
    BOOST_CHECK_EXCEPTION(decoded<path>(b), protocol_error, says("point.x beyond 100"));
    p = sample_path();
    p.points[0].x = 101;
    BOOST_CHECK_EXCEPTION(decoded<path>(encoded(p)), protocol_error, says("point.x beyond 100"));
    p = sample_path();
    p.points.resize(1);
    BOOST_CHECK_EXCEPTION(decoded<path>(encoded(p)), protocol_error, says("path: one point is not a path"));
}

BOOST_AUTO_TEST_CASE(decode_fields_leaves_what_follows_unread) {
    auto b = encoded(point{4, 5});
    b.push_back(0x42);
    wire_reader in(b);
    const auto p = decode_fields<point>(in);
    BOOST_TEST(p.x == 4);
    BOOST_TEST(p.y == 5);
    BOOST_TEST(in.remaining() == 1u);
    BOOST_CHECK_EXCEPTION(in.expect_end("point"), protocol_error, says("point: 1 unexpected trailing bytes"));
}
