#pragma once

// A NEFF's payload, a gzip-compressed tar, read as a stream: only the
// members asked for are kept in memory, the others are only measured.

#include "neuron/neff/neff_file.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::neff::detail {

struct member {
    std::string name; // normalised: no "./", no trailing "/"
    std::uint64_t size = 0;
    bool kept = false;
    std::string data; // when kept
};

struct archive_limits {
    std::uint64_t max_inflated_bytes = std::uint64_t{16} << 30;
    std::size_t max_members = 100'000;
    std::size_t max_kept_bytes = std::size_t{64} << 20; // one kept member
    // A member's name (a pax path or GNU long name included), and a pax
    // extended header's records.
    std::size_t max_name_bytes = 4096;
    std::size_t max_extended_header_bytes = 64 * 1024;
    // What the reader holds of an archive: the kept members, and for every
    // member its name and member_record_bytes.
    std::size_t max_held_bytes = std::size_t{256} << 20;
};

// What one member costs beyond its name: its entry in the list and in the
// loader's index of it.
inline constexpr std::size_t member_record_bytes = 160;

// Every regular member of the tar in `gzip_bytes`, keeping those `keep`
// names. Throws neff_error: a corrupt gzip stream, a damaged or truncated
// tar, a link or device member, a name that leaves the archive ("..", an
// absolute path), a member twice, a limit passed (a name or pax header too
// long, more held than max_held_bytes); read_cancelled when
// `stopped` says so (asked every 64 KiB inflated). Counts in `work` the
// bytes it inflated.
std::vector<member> read_archive(std::string_view gzip_bytes, const std::function<bool(std::string_view)>& keep,
                                 const archive_limits& limits = {}, const stop_test& stopped = {},
                                 read_work* work = nullptr);

} // namespace neuron::neff::detail
