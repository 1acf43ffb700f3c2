#pragma once

// The protocol-buffer wire format, as far as Perfetto's trace needs it:
// varints, fixed64 and length-delimited fields on the way out, and a reader
// that checks every length against the bytes left before trusting it.

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace neuron::profile::perfetto::wire {

enum class wire_type : std::uint8_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

constexpr std::size_t max_varint_bytes = 10;
constexpr std::uint32_t max_field_number = (1u << 29) - 1;

constexpr std::size_t varint_size(std::uint64_t v) {
    return v == 0 ? 1 : (static_cast<std::size_t>(std::bit_width(v)) + 6) / 7;
}

// Writes v at p (room for max_varint_bytes) and returns the end.
inline char* put_varint(char* p, std::uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<char>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}

inline void put_varint(std::string& out, std::uint64_t v) {
    char buf[max_varint_bytes];
    out.append(buf, put_varint(buf, v));
}

constexpr std::uint64_t tag(std::uint32_t field, wire_type type) {
    return (std::uint64_t{field} << 3) | static_cast<std::uint8_t>(type);
}

inline void put_tag(std::string& out, std::uint32_t field, wire_type type) { put_varint(out, tag(field, type)); }

// uint32/uint64/bool/enum fields.
inline void put_varint_field(std::string& out, std::uint32_t field, std::uint64_t v) {
    char buf[2 * max_varint_bytes];
    char* p = put_varint(buf, tag(field, wire_type::varint));
    out.append(buf, put_varint(p, v));
}

// int32/int64 fields: two's complement, so a negative value takes 10 bytes.
inline void put_int_field(std::string& out, std::uint32_t field, std::int64_t v) {
    put_varint_field(out, field, static_cast<std::uint64_t>(v));
}

inline void put_fixed64_field(std::string& out, std::uint32_t field, std::uint64_t v) {
    put_tag(out, field, wire_type::fixed64);
    char buf[8];
    for (auto& b : buf) {
        b = static_cast<char>(v & 0xff);
        v >>= 8;
    }
    out.append(buf, sizeof buf);
}

inline void put_double_field(std::string& out, std::uint32_t field, double v) {
    put_fixed64_field(out, field, std::bit_cast<std::uint64_t>(v));
}

// string, bytes and embedded-message fields.
inline void put_bytes_field(std::string& out, std::uint32_t field, std::string_view payload) {
    char buf[2 * max_varint_bytes];
    char* p = put_varint(buf, tag(field, wire_type::length_delimited));
    out.append(buf, put_varint(p, payload.size()));
    out.append(payload);
}

struct field {
    std::uint32_t number = 0;
    wire_type type = wire_type::varint;
    std::uint64_t value = 0; // varint, fixed64 or fixed32 payload
    std::string_view bytes;  // length-delimited payload
    std::size_t offset = 0;  // of the tag, counted from the start of the outermost message
    std::size_t payload_offset = 0;

    double as_double() const { return std::bit_cast<double>(value); }
};

// Reads the fields of one message. Offsets in errors and fields count from
// the start of the outermost message, so nested readers report positions in
// the file.
class reader {
public:
    explicit reader(std::string_view bytes, std::size_t base = 0) : m_bytes(bytes), m_base(base) {}
    static reader of(const field& f) { return reader(f.bytes, f.payload_offset); }

    std::size_t offset() const { return m_base + m_at; }

    // False at the end of the message; std::runtime_error("byte N: ...") on
    // anything malformed.
    bool next(field& f) {
        if (m_at == m_bytes.size()) return false;
        f.offset = offset();
        const auto key = varint("a field tag", 0);
        const auto type = key & 7;
        const auto number = key >> 3;
        if (number == 0 || number > max_field_number) fail(f.offset, fmt::format("field number {} is invalid", number));
        f.number = static_cast<std::uint32_t>(number);
        switch (type) {
        case 0:
            f.type = wire_type::varint;
            f.value = varint("field", number);
            break;
        case 1:
            f.type = wire_type::fixed64;
            f.value = fixed(8, number);
            break;
        case 2: {
            f.type = wire_type::length_delimited;
            const auto n = varint("the length of field", number);
            if (n > m_bytes.size() - m_at)
                fail(offset(), fmt::format("field {} claims {} bytes, {} are left", number, n, m_bytes.size() - m_at));
            f.payload_offset = offset();
            f.bytes = m_bytes.substr(m_at, static_cast<std::size_t>(n));
            m_at += static_cast<std::size_t>(n);
            break;
        }
        case 5:
            f.type = wire_type::fixed32;
            f.value = fixed(4, number);
            break;
        default: fail(f.offset, fmt::format("field {} has wire type {}, which a trace does not use", number, type));
        }
        return true;
    }

    [[noreturn]] static void fail(std::size_t at, std::string_view what) {
        throw std::runtime_error(fmt::format("byte {}: {}", at, what));
    }

private:
    // `what` names the varint in errors, followed by `number` when it is not 0.
    std::uint64_t varint(const char* what, std::uint64_t number) {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < max_varint_bytes; ++i) {
            if (m_at == m_bytes.size()) fail(offset(), fmt::format("the message ends inside {}", name(what, number)));
            const auto byte = static_cast<std::uint8_t>(m_bytes[m_at++]);
            if (i == max_varint_bytes - 1 && byte > 1)
                fail(offset() - 1, fmt::format("{} does not fit 64 bits", name(what, number)));
            v |= std::uint64_t{byte & 0x7fu} << (7 * i);
            if ((byte & 0x80) == 0) return v;
        }
        fail(offset(), fmt::format("{} does not fit 64 bits", name(what, number))); // unreachable: byte 10 ends it
    }

    static std::string name(const char* what, std::uint64_t number) {
        return number == 0 ? std::string(what) : fmt::format("{} {}", what, number);
    }

    std::uint64_t fixed(std::size_t size, std::uint64_t number) {
        if (m_bytes.size() - m_at < size) fail(offset(), fmt::format("the message ends inside field {}", number));
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < size; ++i)
            v |= std::uint64_t{static_cast<std::uint8_t>(m_bytes[m_at + i])} << (8 * i);
        m_at += size;
        return v;
    }

    std::string_view m_bytes;
    std::size_t m_base;
    std::size_t m_at = 0;
};

} // namespace neuron::profile::perfetto::wire
