#pragma once

// A fuzz input read front to back as a script of small values (unlike
// FuzzedDataProvider, which takes numbers from the end), so that seeds can be
// written by hand as a sequence of bytes. Reading past the end yields zeros.

#include <cstddef>
#include <cstdint>
#include <string>

namespace neuron::fuzz {

class byte_script {
public:
    byte_script(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}

    bool done() const { return m_offset >= m_size; }

    std::uint8_t byte() { return m_offset < m_size ? m_data[m_offset++] : 0; }
    std::uint16_t u16() { return static_cast<std::uint16_t>(little_endian(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(little_endian(4)); }
    std::uint64_t u64() { return little_endian(8); }

    // A length byte (at most `max`), then that many bytes.
    std::string text(std::size_t max) { return take(byte() % (max + 1)); }
    // A two-byte length (at most `max`), then that many bytes.
    std::string blob(std::size_t max) { return take(u16() % (max + 1)); }

private:
    std::uint64_t little_endian(int width) {
        std::uint64_t v = 0;
        for (int i = 0; i < width; ++i) v |= std::uint64_t{byte()} << (8 * i);
        return v;
    }
    std::string take(std::size_t n) {
        const auto available = m_offset < m_size ? m_size - m_offset : 0;
        if (n > available) n = available;
        std::string out(reinterpret_cast<const char*>(m_data + m_offset), n);
        m_offset += n;
        return out;
    }

    const std::uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_offset = 0;
};

} // namespace neuron::fuzz
