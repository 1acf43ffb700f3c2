#pragma once

// Little-endian LEB128 varints, zigzag and length-prefixed strings: the
// session file's encoding (docs/profile-session-format.md).

#include "protobuf_wire.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace neuron::profile::detail {

// The same LEB128 varints as the protocol-buffer wire format's.
using perfetto::wire::put_varint;

inline std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

inline void put_string(std::string& out, std::string_view s) {
    put_varint(out, s.size());
    out.append(s);
}

// Reads what put_* wrote; `fail` throws the caller's error type with the
// offset where reading stopped.
template <typename Error>
class byte_reader {
public:
    // `base`: where `bytes` start in the whole file, for the offsets errors name.
    explicit byte_reader(std::string_view bytes, std::size_t offset = 0, std::size_t base = 0)
            : m_bytes(bytes), m_at(offset), m_base(base) {}

    std::size_t offset() const { return m_at; }
    std::size_t remaining() const { return m_bytes.size() - m_at; }
    bool done() const { return m_at == m_bytes.size(); }

    [[noreturn]] void fail(std::string_view what) const {
        throw Error(fmt::format("byte {}: {}", m_base + m_at, what));
    }

    std::uint64_t varint(std::string_view what) {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_at == m_bytes.size()) fail(fmt::format("the file ends inside {}", what));
            const auto byte = static_cast<std::uint8_t>(m_bytes[m_at++]);
            if (shift == 63 && byte > 1) fail(fmt::format("{} does not fit 64 bits", what));
            v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
            if ((byte & 0x80) == 0) return v;
        }
        fail(fmt::format("{} does not fit 64 bits", what));
    }

    std::uint8_t byte(std::string_view what, std::uint8_t most = UINT8_MAX) {
        if (m_at == m_bytes.size()) fail(fmt::format("the file ends inside {}", what));
        const auto v = static_cast<std::uint8_t>(m_bytes[m_at++]);
        if (v > most) fail(fmt::format("{} is {}, more than {}", what, v, most));
        return v;
    }

    std::uint32_t u32(std::string_view what, std::uint64_t most = UINT32_MAX) {
        const auto v = varint(what);
        if (v > most) fail(fmt::format("{} is {}, more than {}", what, v, most));
        return static_cast<std::uint32_t>(v);
    }

    std::string string(std::string_view what, std::size_t most) {
        const auto n = varint(what);
        if (n > most) fail(fmt::format("{} is {} bytes long, more than {}", what, n, most));
        if (n > remaining()) fail(fmt::format("the file ends inside {}", what));
        std::string s(m_bytes.substr(m_at, n));
        m_at += n;
        return s;
    }

    // A count of records each at least `min_bytes` long: never more than
    // `most`, nor than the rest of the file could hold.
    std::size_t count(std::string_view what, std::size_t min_bytes, std::size_t most = SIZE_MAX) {
        const auto n = varint(what);
        if (n > most) fail(fmt::format("{} says {}, more than {}", what, n, most));
        if (n > remaining() / min_bytes) fail(fmt::format("{} says {}, more than the rest of the file holds", what, n));
        return static_cast<std::size_t>(n);
    }

private:
    std::string_view m_bytes;
    std::size_t m_at;
    std::size_t m_base;
};

} // namespace neuron::profile::detail
