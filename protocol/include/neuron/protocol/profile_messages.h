#pragma once

// The runtime requests that read and drop recorded profiles (protocol/README.md documents them); messages.h includes
// this.

#include "neuron/protocol/message_codec.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace neuron::protocol {

// Profiles the session's executions recorded (execute.profile), kept by the
// emulator until dropped: read_profile answers a piece of the session file
// (docs/profile-session-format.md) holding `profile_ids` in that order.
inline constexpr std::size_t max_profile_ids = 4096;
inline constexpr std::size_t max_profile_chunk_bytes = 128 * 1024;

struct read_profile {
    std::vector<std::uint32_t> profile_ids;
    std::uint64_t offset = 0; // into the session file
    static constexpr const char* wire_name = "read_profile";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("profile_ids", m.profile_ids, max_count{max_profile_ids});
        v("offset", m.offset);
    }
};

struct profile_data {
    std::uint64_t total_bytes = 0; // of the whole session file
    std::string bytes;             // from the offset asked for; at most max_profile_chunk_bytes
    static constexpr const char* wire_name = "profile_data";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("total_bytes", m.total_bytes);
        v("bytes", m.bytes);
    }
    void validate() const {
        if (bytes.size() > max_profile_chunk_bytes) {
            throw protocol_error("profile_data: a piece of " + std::to_string(bytes.size()) + " bytes, more than " +
                                 std::to_string(max_profile_chunk_bytes));
        }
    }
};

struct drop_profiles {
    std::vector<std::uint32_t> profile_ids;
    static constexpr const char* wire_name = "drop_profiles";
    template <typename Self, typename Visit>
    static void fields(Self& m, Visit&& v) {
        v("profile_ids", m.profile_ids, max_count{max_profile_ids});
    }
};

} // namespace neuron::protocol
