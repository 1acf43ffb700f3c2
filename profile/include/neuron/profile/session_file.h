#pragma once

#include "neuron/profile/timeline.h"

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
namespace neuron::profile {

inline constexpr std::string_view session_magic{"NEMUPROF", 8};
inline constexpr std::uint32_t session_format_version = 1;

// A file that is not a session file this version reads, or a damaged one:
// what() names the byte offset and what is wrong.
class session_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One timeline's record, as a session file holds it.
std::string encode_timeline(const core_timeline& t);
// A session file of records encode_timeline() made, in order.
std::string session_file(std::span<const std::string> records);
std::string encode_session(std::span<const core_timeline> timelines);

// Throws session_error; never reads past `bytes` nor allocates more than
// the bytes could describe.
std::vector<core_timeline> decode_session(std::string_view bytes);
bool looks_like_session(std::string_view bytes);

} // namespace neuron::profile
