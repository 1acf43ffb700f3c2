#pragma once

#include "neuron/profile/timeline.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace neuron::control {

// The profiles one runtime session's executions recorded, until the shim
// reads and drops them (read_profile, drop_profiles). Executions keep them
// from the kernel thread, requests read them from the I/O thread. It holds
// at most max_profiles of them and max_instructions in all: keeping more
// drops the oldest, which a later read names as gone.
class profile_store {
public:
    static constexpr std::size_t max_profiles = 256;
    static constexpr std::size_t max_instructions = std::size_t{1} << 24;

    // Its id (never 0).
    std::uint32_t keep(std::shared_ptr<const profile::core_timeline> timeline);

    struct piece {
        std::uint64_t total_bytes;
        std::string bytes;
    };
    // Up to `most` bytes from `offset` of the session file holding `ids` in
    // that order. Throws std::invalid_argument naming an id not kept (never
    // kept, dropped, or pushed out) or an offset past the end.
    piece read(std::span<const std::uint32_t> ids, std::uint64_t offset, std::size_t most);
    void drop(std::span<const std::uint32_t> ids);

private:
    struct entry {
        std::uint32_t id;
        std::shared_ptr<const profile::core_timeline> timeline;
    };

    std::mutex m_mutex;
    std::deque<entry> m_entries; // oldest first
    std::size_t m_instructions = 0;
    std::uint32_t m_next_id = 1;
    // The file last read, for the pieces that follow.
    std::vector<std::uint32_t> m_file_ids;
    std::string m_file;
};

} // namespace neuron::control
