#pragma once

#include "neuron/profile/timeline.h"

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// The session file: profiled executions (core_timelines), one per file from
// `neuron-emu profile capture`, one or more from the shim's profiling calls;
// read by every view. The layout is documented in
// docs/profile-session-format.md; the same timelines always give the same
// bytes.
namespace neuron::common {
class input_file;
}

namespace neuron::profile {

inline constexpr std::string_view session_magic{"NEMUPROF", 8};
inline constexpr std::uint32_t session_format_version = 2;
// The largest session file neuron-emu builds (the emulator, for the shim's
// profiling calls) or reads (`profile view`, `profile diff`): a program of
// 2^20 instructions makes a file of a few tens of MiB.
inline constexpr std::size_t max_session_file_bytes = std::size_t{1} << 28;

// A file that is not a session file this version reads, or a damaged one:
// what() names the byte offset and what is wrong.
class session_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A session file that would be larger than the caller allows: what() says
// how large it may be.
class session_too_large : public std::length_error {
public:
    using std::length_error::length_error;
};

// One timeline's record, as a session file holds it.
std::string encode_timeline(const core_timeline& t);
std::string encode_session(std::span<const core_timeline> timelines);
// The session file of `timelines` in that order, refused with
// session_too_large as soon as it passes `most` bytes: encoding stops there,
// so what it costs is bounded by `most` whatever the timelines hold.
std::string encode_session(std::span<const core_timeline* const> timelines, std::size_t most);

// A session file's executions decoded one at a time, so that a reader
// holds one of them rather than all: what the views read. Throws
// session_error; never reads past the file nor allocates more than its
// bytes could describe.
class session_reader {
public:
    // Both check the header and the execution count.
    explicit session_reader(std::string_view bytes);
    // Reads `file` as it goes: it holds the bytes of one execution at a time.
    explicit session_reader(common::input_file& file);
    // The next execution, or nothing after the last, once the file is known
    // to end there and to hold at least one.
    std::optional<core_timeline> next();

private:
    // Bytes [at, at + n) of the file, fewer at its end; at never goes back.
    std::string_view bytes_at(std::size_t at, std::size_t n);
    void read_header();

    common::input_file* m_file = nullptr;
    std::string_view m_bytes; // without a file
    std::size_t m_size = 0;
    std::string m_buffer; // a file's bytes from m_buffer_at
    std::size_t m_buffer_at = 0;
    std::size_t m_count = 0; // executions the file says it holds
    std::size_t m_read = 0;
    std::size_t m_at = 0; // the next one's offset
};

// Every execution, with the checks of session_reader.
std::vector<core_timeline> decode_session(std::string_view bytes);
bool looks_like_session(std::string_view bytes);

} // namespace neuron::profile
