#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace neuron::sysfs {

// A driver release as major.minor; the sysfs layout only changes between minors.
struct driver_version {
    std::uint16_t major = 0;
    std::uint16_t minor = 0;
    constexpr auto operator<=>(const driver_version&) const = default;
};

// A release of aws-neuronx-dkms whose sysfs layout the emulator reproduces
// (driver-sysfs.md §1, "Version history of the tree").
struct driver_release {
    driver_version version;
    std::string_view tag; // the full release name, e.g. "2.24.7.0"
};

// Oldest first.
std::span<const driver_release> known_releases();
const driver_release& default_release(); // 2.24.7.0

// Any release from 2.7 to 2.25, as major.minor ("2.22") or a full tag
// ("2.20.74.0"): the tree of the latest release at or below it that changed
// the tree (2.22 shows 2.21.37.0's). Anything else throws
// unknown_driver_version_error naming the range and the releases.
const driver_release& find_release(std::string_view text);

std::string known_release_list(); // "2.7.15.0, 2.8.4.0, ..."

} // namespace neuron::sysfs
