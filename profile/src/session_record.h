#pragma once

// One execution's record in a session file (docs/profile-session-format.md):
// its header, names, transfers, instructions, runs, semaphore changes,
// faults and throttled stretches. session_file.cpp frames the records.

#include "byte_codec.h"

#include "neuron/profile/session_file.h"

#include <cstddef>
#include <string>

namespace neuron::profile::detail {

using session_bytes_reader = byte_reader<session_error>;

// The record of `t`, refused with session_too_large past `most` bytes: the
// encoder checks per record, so it never grows far past it.
std::string encode_record(const core_timeline& t, std::size_t most);
// One record: all of `in`'s bytes, or session_error naming the byte.
core_timeline decode_record(session_bytes_reader& in);

// Throws session_too_large: a file of more than `most` bytes.
[[noreturn]] void too_large(std::size_t most);
void check_size(const std::string& out, std::size_t most);

} // namespace neuron::profile::detail
