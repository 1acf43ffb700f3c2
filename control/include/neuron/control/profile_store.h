#pragma once

#include "neuron/control/profile_budget.h"
#include "neuron/profile/session_file.h"
#include "neuron/profile/timeline.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace neuron::control {

// A read the emulator has no room to answer (NRT_RESOURCE); the store's
// other refusals are std::invalid_argument (NRT_INVALID).
class profile_room_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What one process's profile_store holds at most.
struct profile_limits {
    std::size_t profiles = 256;
    std::uint64_t bytes = std::uint64_t{1} << 30;
    // A read's session file, built whole before its first piece is sent.
    std::size_t file_bytes = profile::max_session_file_bytes;
};

// The profiles one runtime session's executions recorded, until the shim
// reads and drops them (read_profile, drop_profiles). Executions keep them
// from the kernel thread, requests read them from other threads. It holds
// at most limits.profiles of them and limits.bytes in all (the newest is always
// kept): keeping more pushes out the oldest, which a later read names as
// gone. What it holds, and the session file it built last, it takes from a
// budget shared by every process's store: a profile the budget has no room
// for is not kept, and reading it says why.
class profile_store {
public:
    explicit profile_store(std::shared_ptr<profile_budget> budget = profile_budget::shared(),
                           profile_limits limits = {});
    ~profile_store(); // gives back all it holds
    profile_store(const profile_store&) = delete;
    profile_store& operator=(const profile_store&) = delete;

    // Its id (never 0), whether it was kept or refused.
    std::uint32_t keep(std::shared_ptr<const profile::core_timeline> timeline);

    struct piece {
        std::uint64_t total_bytes;
        std::string bytes;
    };
    // Checks a read of `ids`: at least one, none named twice, each kept
    // (std::invalid_argument; profile_room_error for one refused). True: the
    // file holding them is the one built last and read() answers at once.
    // False: it must be built first, taking time in proportion to the
    // profiles; until finish_read() returns, a read needing another build
    // is refused (profile_room_error): one build at a time per process.
    bool begin_read(std::span<const std::uint32_t> ids);
    // Up to `most` bytes from `offset` of the session file holding `ids` in
    // that order, built if it is not the one built last. Throws as
    // begin_read() does, std::invalid_argument for an offset past the end,
    // and profile_room_error for a file larger than limits.file_bytes or one
    // the budget has no room for.
    piece read(std::span<const std::uint32_t> ids, std::uint64_t offset, std::size_t most);
    // read() after begin_read() said false: the build ends with it, however
    // it ends (its profiles may have gone meanwhile).
    piece finish_read(std::span<const std::uint32_t> ids, std::uint64_t offset, std::size_t most);
    void drop(std::span<const std::uint32_t> ids);

private:
    struct entry {
        std::uint32_t id;
        std::shared_ptr<const profile::core_timeline> timeline; // none: refused, for `refusal`
        std::uint64_t bytes = 0;                                // taken from the budget
        std::string refusal;
    };

    const entry& kept(std::uint32_t id) const; // under m_mutex
    void check(std::span<const std::uint32_t> ids) const;
    bool built(std::span<const std::uint32_t> ids) const;
    piece piece_of(std::uint64_t offset, std::size_t most) const;
    void forget_file();
    void push_out_oldest();

    std::shared_ptr<profile_budget> m_budget;
    const profile_limits m_limits;
    mutable std::mutex m_mutex;
    std::deque<entry> m_entries; // oldest first
    std::uint64_t m_bytes = 0;   // of the profiles kept
    std::uint32_t m_next_id = 1;
    // The file built last, for the pieces that follow; its bytes are taken too.
    std::vector<std::uint32_t> m_file_ids;
    std::string m_file;
    bool m_building = false;
};

} // namespace neuron::control
