#define BOOST_TEST_MODULE message_wire_format
// The wire format of every message in messages.h, held fixed: the bytes
// each body encodes to, and what decoding refuses (enum values out of range,
// vectors over their count, short and long bodies), for every field the
// bodies describe, nested ones included.
#include "neuron/protocol/messages.h"

#include "support/message_samples.h"
#include "support/wire_version_6.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

using namespace neuron::protocol;
using neuron::protocol::testing::for_each_sample;
using neuron::protocol::testing::version_6_bodies;

namespace {

using bytes = std::vector<std::uint8_t>;

template <typename Body>
bytes encoded(const Body& body) {
    wire_writer w;
    encode_fields(w, body);
    return w.bytes();
}

template <typename Body>
Body decoded(const bytes& b) {
    return decode_body<Body>(b.data(), b.size(), Body::wire_name);
}

std::string hex(const bytes& b) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (const auto byte : b) {
        out += digits[byte >> 4];
        out += digits[byte & 0xf];
    }
    return out;
}

auto says(std::string text) {
    return [text = std::move(text)](const protocol_error& e) {
        BOOST_TEST_INFO("message: " << e.what());
        return std::string(e.what()).find(text) != std::string::npos;
    };
}

// A body as text, nested structs and vectors spelled out, strings in hex and
// doubles exactly (%a): two bodies are equal when their texts are.
class describer {
public:
    explicit describer(std::string& out) : m_out(out) {}

    template <typename T>
    void operator()(const char* field, const T& value) {
        m_out.append(field).append("=");
        put(value);
        m_out += ' ';
    }

    template <typename T>
    void operator()(const char* field, const std::vector<T>& values, max_count) {
        m_out.append(field).append("=[");
        for (const auto& value : values) {
            put(value);
            m_out += ',';
        }
        m_out += "] ";
    }

private:
    template <typename T>
    void put(const T& value) {
        if constexpr (std::is_same_v<T, bool>) {
            m_out += value ? "true" : "false";
        } else if constexpr (std::is_enum_v<T>) {
            m_out += std::to_string(static_cast<std::underlying_type_t<T>>(value));
        } else if constexpr (std::is_integral_v<T>) {
            m_out += std::to_string(value);
        } else if constexpr (std::is_same_v<T, double>) {
            char text[64];
            std::snprintf(text, sizeof(text), "%a", value);
            m_out += text;
        } else if constexpr (std::is_same_v<T, std::string>) {
            m_out += '"' + hex(bytes(value.begin(), value.end())) + '"';
        } else {
            m_out += '{';
            T::fields(value, describer(m_out));
            m_out += '}';
        }
    }

    std::string& m_out;
};

template <typename Body>
std::string text_of(const Body& body) {
    std::string out;
    Body::fields(body, describer(out));
    return out;
}

// Each of a body's own fields as text, one entry per field.
template <typename Body>
std::vector<std::string> field_texts(const Body& body) {
    std::vector<std::string> out;
    Body::fields(body, [&out](const char* field, const auto&... value) {
        std::string text;
        describer describe(text);
        describe(field, value...);
        out.push_back(std::move(text));
    });
    return out;
}

// A value that a decoder must refuse, where it sits in a body, and what the
// refusal must say.
struct bad_value {
    std::string field; // "hello.role"
    std::size_t offset;
    std::size_t width;
    std::uint64_t value;
    std::string error;
};

// One field as its own body, so a leaf is encoded exactly as the codec does.
template <typename T>
struct one_field {
    const T& value;
    static constexpr const char* wire_name = "one_field";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("value", m.value);
    }
};

// Encodes a body as the codec does, noting on the way each enum (with values
// beside its range) and each vector count (with counts over its maximum).
class bad_value_finder {
public:
    bad_value_finder(wire_writer& out, std::vector<bad_value>& found, const char* message)
            : m_out(out), m_found(found), m_message(message) {}

    template <typename T>
    void operator()(const char* field, const T& value) {
        if constexpr (std::is_enum_v<T>) note_enum<T>(field);
        put(value);
    }

    template <typename T>
    void operator()(const char* field, const std::vector<T>& values, max_count max) {
        for (const std::uint64_t count : {std::uint64_t{max.value} + 1, std::uint64_t{0xffffffff}}) {
            m_found.push_back({qualified(field), m_out.bytes().size(), 4, count,
                               std::string(m_message) + ": " + std::to_string(count) + " entries in " +
                                   qualified(field) + ", more than " + std::to_string(max.value)});
        }
        m_out.u32(static_cast<std::uint32_t>(values.size()));
        for (const auto& value : values) put(value);
    }

private:
    std::string qualified(const char* field) const { return std::string(m_message) + "." + field; }

    template <typename E>
    void note_enum(const char* field) {
        using raw = std::underlying_type_t<E>;
        static_assert(std::is_unsigned_v<raw>);
        const auto range = wire_range(E{});
        const std::uint64_t first = static_cast<raw>(range.first);
        const std::uint64_t last = static_cast<raw>(range.last);
        const std::uint64_t most = std::numeric_limits<raw>::max();
        std::set<std::uint64_t> values{most};
        if (first > 0) values.insert(first - 1);
        if (last < most) values.insert(last + 1);
        values.erase(last == most ? most : most + 1); // never one in range
        for (const auto v : values) {
            m_found.push_back({qualified(field), m_out.bytes().size(), sizeof(raw), v,
                               std::string(m_message) + ": unknown " + range.name + " " + std::to_string(v) + " in " +
                                   qualified(field)});
        }
    }

    template <typename T>
    void put(const T& value) {
        if constexpr (described_message<T>) {
            T::fields(value, bad_value_finder(m_out, m_found, T::wire_name));
        } else {
            encode_fields(m_out, one_field<T>{value});
        }
    }

    wire_writer& m_out;
    std::vector<bad_value>& m_found;
    const char* m_message;
};

template <typename Body>
std::vector<bad_value> bad_values_of(const Body& body) {
    wire_writer out;
    std::vector<bad_value> found;
    Body::fields(body, bad_value_finder(out, found, Body::wire_name));
    BOOST_TEST(out.bytes() == encoded(body), boost::test_tools::per_element());
    return found;
}

// Resizes the vector field met `target`-th (nested ones counted, in wire
// order) to its maximum count plus `extra`, with copies of its first entry.
class vector_resizer {
public:
    struct result {
        std::size_t seen = 0;
        std::string field;
        std::uint32_t max = 0;
    };

    vector_resizer(std::size_t target, std::uint32_t extra, const char* message, result& r)
            : m_target(target), m_extra(extra), m_message(message), m_result(r) {}

    template <typename T>
    void operator()(const char*, T& value) {
        if constexpr (described_message<T>) T::fields(value, vector_resizer(m_target, m_extra, T::wire_name, m_result));
    }

    template <typename T>
    void operator()(const char* field, std::vector<T>& values, max_count max) {
        if (m_result.seen++ == m_target) {
            values.resize(std::size_t{max.value} + m_extra, values.empty() ? T{} : values.front());
            m_result.field = std::string(m_message) + "." + field;
            m_result.max = max.value;
            return;
        }
        if constexpr (described_message<T>) {
            for (auto& value : values) T::fields(value, vector_resizer(m_target, m_extra, T::wire_name, m_result));
        }
    }

private:
    std::size_t m_target;
    std::uint32_t m_extra;
    const char* m_message;
    result& m_result;
};

bytes patched(bytes b, const bad_value& bad) {
    for (std::size_t i = 0; i < bad.width; ++i) b[bad.offset + i] = static_cast<std::uint8_t>(bad.value >> (8 * i));
    return b;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_message_encodes_to_the_bytes_of_wire_version_6) {
    BOOST_TEST(wire_version == 6);
    std::set<std::string> seen;
    for_each_sample([&](const char* name, const auto& body) {
        BOOST_TEST_CONTEXT(name) {
            BOOST_TEST_REQUIRE(version_6_bodies.count(name) == 1u);
            BOOST_TEST(hex(encoded(body)) == version_6_bodies.at(name));
            seen.insert(name);
        }
    });
    BOOST_TEST(seen.size() == version_6_bodies.size());
}

BOOST_AUTO_TEST_CASE(every_sample_field_differs_from_its_default) {
    // Otherwise a field the decoder forgot would still round-trip.
    for_each_sample([](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        const auto sample = field_texts(body);
        const auto defaults = field_texts(body_type{});
        BOOST_TEST_REQUIRE(sample.size() == defaults.size());
        for (std::size_t i = 0; i < sample.size(); ++i) {
            BOOST_TEST_CONTEXT(name << " " << sample[i]) { BOOST_TEST(sample[i] != defaults[i]); }
        }
    });
}

BOOST_AUTO_TEST_CASE(every_message_decodes_back_equal) {
    for_each_sample([](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        BOOST_TEST_CONTEXT(name) {
            const auto b = encoded(body);
            const auto back = decoded<body_type>(b);
            BOOST_TEST(text_of(back) == text_of(body));
            BOOST_TEST(encoded(back) == b, boost::test_tools::per_element());
        }
    });
}

BOOST_AUTO_TEST_CASE(every_enum_field_refuses_values_beside_its_range) {
    std::set<std::string> fields;
    for_each_sample([&](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        const auto b = encoded(body);
        for (const auto& bad : bad_values_of(body)) {
            if (bad.error.find(": unknown ") == std::string::npos) continue;
            fields.insert(bad.field);
            BOOST_TEST_CONTEXT(name << ": " << bad.field << " = " << bad.value) {
                BOOST_CHECK_EXCEPTION(decoded<body_type>(patched(b, bad)), protocol_error, says(bad.error));
            }
        }
    });
    const std::set<std::string> expected{"hello.role",         "open_session.selection", "allocate.location",
                                         "model_tensor.usage", "model_tensor.rule",      "join_collective.kind"};
    BOOST_TEST(fields == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(errors_name_the_message_and_the_field) {
    auto b = encoded(hello{peer_role::runtime, 1, "x"});
    b[0] = 7;
    BOOST_CHECK_EXCEPTION(decoded<hello>(b), protocol_error, says("hello: unknown role 7 in hello.role"));
    b[0] = 1;
    b.resize(3);
    BOOST_CHECK_EXCEPTION(decoded<hello>(b), protocol_error, says("message too short reading hello.pid"));
}

BOOST_AUTO_TEST_CASE(every_vector_count_over_its_maximum_is_refused_before_its_entries) {
    std::set<std::string> fields;
    for_each_sample([&](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        const auto b = encoded(body);
        for (const auto& bad : bad_values_of(body)) {
            if (bad.error.find(" entries in ") == std::string::npos) continue;
            fields.insert(bad.field);
            BOOST_TEST_CONTEXT(name << ": " << bad.field << " count " << bad.value) {
                BOOST_CHECK_EXCEPTION(decoded<body_type>(patched(b, bad)), protocol_error, says(bad.error));
            }
        }
    });
    const std::set<std::string> expected{"model_tensor.shape",        "model_tensor.sources",
                                         "model_loaded.tensors",      "read_profile.profile_ids",
                                         "drop_profiles.profile_ids", "emit_debug.shape"};
    BOOST_TEST(fields == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_vector_takes_its_maximum_and_refuses_one_more) {
    std::string limits; // "field=max " for every vector met
    for_each_sample([&](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        for (std::size_t target = 0;; ++target) {
            auto full = body;
            vector_resizer::result at_max;
            body_type::fields(full, vector_resizer(target, 0, body_type::wire_name, at_max));
            if (at_max.field.empty()) break; // no vector left
            if (limits.find(at_max.field + "=") == std::string::npos) {
                limits += at_max.field + "=" + std::to_string(at_max.max) + " ";
            }
            BOOST_TEST_CONTEXT(name << ": " << at_max.field << " with " << at_max.max << " entries") {
                const auto b = encoded(full);
                BOOST_TEST(text_of(decoded<body_type>(b)) == text_of(full));
            }
            auto over = body;
            vector_resizer::result beyond;
            body_type::fields(over, vector_resizer(target, 1, body_type::wire_name, beyond));
            BOOST_TEST_CONTEXT(name << ": " << beyond.field << " with " << beyond.max + 1 << " entries") {
                const auto message = beyond.field.substr(0, beyond.field.find('.'));
                BOOST_CHECK_EXCEPTION(decoded<body_type>(encoded(over)), protocol_error,
                                      says(message + ": " + std::to_string(beyond.max + 1) + " entries in " +
                                           beyond.field + ", more than " + std::to_string(beyond.max)));
            }
        }
    });
    BOOST_TEST(limits == "model_tensor.shape=8 model_tensor.sources=64 model_loaded.tensors=4096 "
                         "read_profile.profile_ids=4096 drop_profiles.profile_ids=4096 emit_debug.shape=8 ");
}

BOOST_AUTO_TEST_CASE(every_message_refuses_trailing_bytes) {
    for_each_sample([](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        BOOST_TEST_CONTEXT(name) {
            auto b = encoded(body);
            b.push_back(0);
            BOOST_CHECK_EXCEPTION(decode_body<body_type>(b.data(), b.size(), name), protocol_error,
                                  says(std::string(name) + ": 1 unexpected trailing bytes"));
        }
    });
}

BOOST_AUTO_TEST_CASE(every_message_refuses_every_truncation) {
    for_each_sample([](const char* name, const auto& body) {
        using body_type = std::decay_t<decltype(body)>;
        const auto b = encoded(body);
        for (std::size_t n = 0; n < b.size(); ++n) {
            BOOST_TEST_CONTEXT(name << " cut to " << n << " bytes") {
                const bytes cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
                BOOST_CHECK_EXCEPTION(decoded<body_type>(cut), protocol_error, says("message too short reading "));
            }
        }
    });
}
