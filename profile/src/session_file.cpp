#include "neuron/profile/session_file.h"

#include "session_record.h"

#include "neuron/common/regular_file.h"

#include <algorithm>

namespace neuron::profile {

using detail::check_size;
using detail::encode_record;
using detail::put_string;
using detail::put_varint;
using detail::too_large;
using reader = detail::session_bytes_reader;

std::string encode_timeline(const core_timeline& t) { return encode_record(t, SIZE_MAX); }

std::string encode_session(std::span<const core_timeline* const> timelines, std::size_t most) {
    std::string out(session_magic);
    const auto version = session_format_version;
    for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>(version >> shift & 0xff));
    put_varint(out, timelines.size());
    for (const auto* t : timelines) {
        check_size(out, most);
        // The record is built beside the file: at most what is left of `most`.
        std::string record;
        try {
            record = encode_record(*t, most - out.size());
        } catch (const session_too_large&) {
            too_large(most);
        }
        put_string(out, record);
        check_size(out, most);
    }
    return out;
}

std::string encode_session(std::span<const core_timeline> timelines) {
    std::vector<const core_timeline*> all;
    for (const auto& t : timelines) all.push_back(&t);
    return encode_session(all, SIZE_MAX);
}

bool looks_like_session(std::string_view bytes) { return bytes.starts_with(session_magic); }

session_reader::session_reader(std::string_view bytes) : m_bytes(bytes), m_size(bytes.size()) { read_header(); }

session_reader::session_reader(common::input_file& file) : m_file(&file), m_size(file.size()) { read_header(); }

std::string_view session_reader::bytes_at(std::size_t at, std::size_t n) {
    n = std::min(n, m_size - std::min(at, m_size));
    if (m_file == nullptr) return m_bytes.substr(std::min(at, m_bytes.size()), n);
    // Read in order: what comes before `at` is done with.
    const auto done = std::min(at - m_buffer_at, m_buffer.size());
    m_buffer.erase(0, done);
    m_buffer_at += done;
    if (m_buffer.size() < n) {
        const auto had = m_buffer.size();
        m_buffer.resize(n);
        m_buffer.resize(had + m_file->read(m_buffer.data() + had, n - had));
    }
    return std::string_view(m_buffer).substr(0, n);
}

void session_reader::read_header() {
    constexpr std::size_t header_bytes = session_magic.size() + 4;
    const auto head = bytes_at(0, header_bytes + 10); // and the execution count
    if (!looks_like_session(head)) {
        throw session_error("byte 0: not a neuron-emu profile session file (no NEMUPROF header)");
    }
    if (head.size() < header_bytes) {
        throw session_error(fmt::format("byte {}: the file ends inside its header", head.size()));
    }
    std::uint32_t version = 0;
    for (int i = 3; i >= 0; --i) {
        version = version << 8 | static_cast<std::uint8_t>(head[session_magic.size() + static_cast<std::size_t>(i)]);
    }
    if (version != session_format_version) {
        throw session_error(fmt::format("byte {}: session format version {}; this neuron-emu reads version {}",
                                        session_magic.size(), version, session_format_version));
    }
    reader in(head, header_bytes);
    const auto count = in.varint("the execution count");
    // Each execution takes at least a byte.
    if (count > m_size - in.offset()) {
        in.fail(fmt::format("the execution count says {}, more than the rest of the file holds", count));
    }
    m_count = static_cast<std::size_t>(count);
    m_at = in.offset();
}

std::optional<core_timeline> session_reader::next() {
    const auto fail_at = [](std::size_t at, std::string_view what) { reader(std::string_view(), 0, at).fail(what); };
    if (m_read == m_count) {
        if (m_at != m_size) fail_at(m_at, fmt::format("{} bytes follow the last execution", m_size - m_at));
        if (m_count == 0) fail_at(m_at, "the file holds no execution");
        return std::nullopt;
    }
    reader prefix(bytes_at(m_at, 10), 0, m_at);
    const auto length = prefix.varint("an execution's length");
    const auto start = m_at + prefix.offset();
    if (length > m_size - start) fail_at(start, "the file ends inside an execution");
    const auto bytes = bytes_at(start, static_cast<std::size_t>(length));
    if (bytes.size() != length) fail_at(start, "the file ends inside an execution"); // it shrank
    // Offsets in errors stay those of the whole file.
    reader record(bytes, 0, start);
    auto t = detail::decode_record(record);
    m_at = start + bytes.size();
    ++m_read;
    return t;
}

std::vector<core_timeline> decode_session(std::string_view bytes) {
    session_reader in(bytes);
    std::vector<core_timeline> out;
    while (auto t = in.next()) out.push_back(std::move(*t));
    return out;
}

} // namespace neuron::profile
