#pragma once

// The control channel's wire format: one message per SOCK_SEQPACKET
// datagram, a 16-byte header then a body of little-endian fields. Header
// only: the runtime shim includes it and links nothing else of ours.

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::protocol {

inline constexpr std::uint32_t wire_magic = 0x554d454e; // "NEMU" in memory order
inline constexpr std::uint16_t wire_version = 6;
inline constexpr std::size_t header_size = 16;
// Larger bodies (a model file, a long status report) are refused.
inline constexpr std::size_t max_body_size = 16u << 20;
inline constexpr std::size_t max_string_size = 1u << 20;

// A message that cannot be decoded: the peer is told why and disconnected.
class protocol_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct frame_header {
    std::uint32_t magic = wire_magic;
    std::uint16_t version = wire_version;
    std::uint16_t type = 0;
    std::uint32_t request_id = 0;
    std::uint32_t body_size = 0;
};

// Appends fields to a message.
class wire_writer {
public:
    void u8(std::uint8_t v) { m_bytes.push_back(v); }
    void u16(std::uint16_t v) { put(v, 2); }
    void u32(std::uint32_t v) { put(v, 4); }
    void u64(std::uint64_t v) { put(v, 8); }
    void i32(std::int32_t v) { put(static_cast<std::uint32_t>(v), 4); }
    void i64(std::int64_t v) { put(static_cast<std::uint64_t>(v), 8); }
    void f64(double v) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof(bits));
        u64(bits);
    }
    void boolean(bool v) { u8(v ? 1 : 0); }
    void string(std::string_view s) {
        u32(static_cast<std::uint32_t>(s.size()));
        m_bytes.insert(m_bytes.end(), s.begin(), s.end());
    }
    void raw(const void* data, std::size_t size) {
        const auto* p = static_cast<const std::uint8_t*>(data);
        m_bytes.insert(m_bytes.end(), p, p + size);
    }
    std::vector<std::uint8_t>& bytes() { return m_bytes; }
    const std::vector<std::uint8_t>& bytes() const { return m_bytes; }

private:
    void put(std::uint64_t v, int width) {
        for (int i = 0; i < width; ++i) m_bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    std::vector<std::uint8_t> m_bytes;
};

// Reads fields back, refusing to read past the end; `field` names what was
// being read when a message is short, for the error.
class wire_reader {
public:
    wire_reader(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
    explicit wire_reader(const std::vector<std::uint8_t>& bytes) : wire_reader(bytes.data(), bytes.size()) {}

    std::uint8_t u8(const char* field) { return static_cast<std::uint8_t>(get(1, field)); }
    std::uint16_t u16(const char* field) { return static_cast<std::uint16_t>(get(2, field)); }
    std::uint32_t u32(const char* field) { return static_cast<std::uint32_t>(get(4, field)); }
    std::uint64_t u64(const char* field) { return get(8, field); }
    std::int32_t i32(const char* field) { return static_cast<std::int32_t>(u32(field)); }
    std::int64_t i64(const char* field) { return static_cast<std::int64_t>(u64(field)); }
    double f64(const char* field) {
        const auto bits = u64(field);
        double v = 0;
        std::memcpy(&v, &bits, sizeof(v));
        return v;
    }
    bool boolean(const char* field) {
        const auto v = u8(field);
        if (v > 1) throw protocol_error(std::string("bad boolean in ") + field);
        return v == 1;
    }
    std::string string(const char* field) {
        const auto size = u32(field);
        if (size > max_string_size) throw protocol_error(std::string("oversized string in ") + field);
        need(size, field);
        std::string s(reinterpret_cast<const char*>(m_data + m_offset), size);
        m_offset += size;
        return s;
    }
    // The rest of the message, as is.
    std::vector<std::uint8_t> rest() {
        std::vector<std::uint8_t> out(m_data + m_offset, m_data + m_size);
        m_offset = m_size;
        return out;
    }
    // A message must be consumed exactly: trailing bytes mean the peer and we
    // disagree about its layout.
    void expect_end(const char* message) const {
        if (m_offset != m_size) {
            throw protocol_error(std::string(message) + ": " + std::to_string(m_size - m_offset) +
                                 " unexpected trailing bytes");
        }
    }
    std::size_t remaining() const { return m_size - m_offset; }

private:
    void need(std::size_t n, const char* field) const {
        if (n > m_size - m_offset) throw protocol_error(std::string("message too short reading ") + field);
    }
    std::uint64_t get(int width, const char* field) {
        need(static_cast<std::size_t>(width), field);
        std::uint64_t v = 0;
        for (int i = 0; i < width; ++i) v |= std::uint64_t(m_data[m_offset + i]) << (8 * i);
        m_offset += static_cast<std::size_t>(width);
        return v;
    }
    const std::uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_offset = 0;
};

inline void encode_header(wire_writer& out, const frame_header& h) {
    out.u32(h.magic);
    out.u16(h.version);
    out.u16(h.type);
    out.u32(h.request_id);
    out.u32(h.body_size);
}

// Checks magic, version and size against the datagram that carried it.
inline frame_header decode_header(const std::uint8_t* data, std::size_t size) {
    if (size < header_size) throw protocol_error("datagram shorter than a message header");
    wire_reader in(data, header_size);
    frame_header h;
    h.magic = in.u32("magic");
    h.version = in.u16("version");
    h.type = in.u16("type");
    h.request_id = in.u32("request id");
    h.body_size = in.u32("body size");
    if (h.magic != wire_magic) throw protocol_error("not a neuron-emu control message (bad magic)");
    if (h.version != wire_version) {
        throw protocol_error("protocol version " + std::to_string(h.version) + " is not supported; this side speaks " +
                             std::to_string(wire_version));
    }
    if (h.body_size != size - header_size) throw protocol_error("message size does not match its header");
    if (h.body_size > max_body_size) throw protocol_error("message body too large");
    return h;
}

} // namespace neuron::protocol
