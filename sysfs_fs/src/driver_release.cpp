#include "neuron/sysfs/driver_release.h"

#include "neuron/sysfs/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace neuron::sysfs {
namespace {

// Every release the version table of driver-sysfs.md §1 names.
constexpr std::array releases{
    driver_release{{2, 7}, "2.7.15.0"},   driver_release{{2, 8}, "2.8.4.0"},    driver_release{{2, 9}, "2.9.4.0"},
    driver_release{{2, 10}, "2.10.11.0"}, driver_release{{2, 12}, "2.12.11.0"}, driver_release{{2, 13}, "2.13.4.0"},
    driver_release{{2, 14}, "2.14.5.0"},  driver_release{{2, 15}, "2.15.9.0"},  driver_release{{2, 16}, "2.16.7.0"},
    driver_release{{2, 17}, "2.17.17.0"}, driver_release{{2, 18}, "2.18.12.0"}, driver_release{{2, 19}, "2.19.64.0"},
    driver_release{{2, 20}, "2.20.28.0"}, driver_release{{2, 21}, "2.21.37.0"}, driver_release{{2, 23}, "2.23.9.0"},
    driver_release{{2, 24}, "2.24.7.0"},  driver_release{{2, 25}, "2.25.4.0"},
};

std::string short_name(const driver_release& r) { return fmt::format("{}.{}", r.version.major, r.version.minor); }

} // namespace

std::span<const driver_release> known_releases() { return releases; }

const driver_release& default_release() { return releases[releases.size() - 2]; }

namespace {

// "2.22" or "2.20.74.0": the major and minor of a release name, or nothing.
std::optional<driver_version> parse_version(std::string_view text) {
    std::array<std::uint32_t, 4> parts{};
    std::size_t count = 0;
    std::size_t start = 0;
    for (;;) {
        const auto dot = text.find('.', start);
        const auto part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (count == parts.size() || part.empty() || part.size() > 6 || (part.size() > 1 && part[0] == '0') ||
            !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
            return std::nullopt;
        }
        parts[count] = 0;
        for (const char c : part) parts[count] = parts[count] * 10 + static_cast<std::uint32_t>(c - '0');
        ++count;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    if (count != 2 && count != 4) return std::nullopt;
    if (parts[0] > UINT16_MAX || parts[1] > UINT16_MAX) return std::nullopt;
    return driver_version{static_cast<std::uint16_t>(parts[0]), static_cast<std::uint16_t>(parts[1])};
}

} // namespace

const driver_release& find_release(std::string_view text) {
    const auto version = parse_version(text);
    const auto& first = releases.front();
    const auto& last = releases.back();
    if (!version || *version < first.version || version->major != last.version.major ||
        version->minor > last.version.minor) {
        throw unknown_driver_version_error(fmt::format(
            "unknown driver version '{}': give a release from {} to {}, as MAJOR.MINOR or a full tag such as {} "
            "(the tree changed in {})",
            text, short_name(first), short_name(last), default_release().tag, known_release_list()));
    }
    // The tree only changes between minors: a release shows the tree of the
    // latest one at or below it that changed it.
    const auto it = std::find_if(releases.rbegin(), releases.rend(),
                                 [&](const driver_release& r) { return r.version <= *version; });
    return *it;
}

std::string known_release_list() {
    std::string out;
    for (const auto& r : releases) {
        if (!out.empty()) out += ", ";
        out += r.tag;
    }
    return out;
}

} // namespace neuron::sysfs
