#include "neuron/sysfs/driver_release.h"

#include "neuron/sysfs/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace neuron::sysfs {
namespace {

// Every release the version table of driver-sysfs.md §1 names.
constexpr std::array releases{
    driver_release{{2, 7}, "2.7.15.0"},   driver_release{{2, 8}, "2.8.4.0"},
    driver_release{{2, 9}, "2.9.4.0"},    driver_release{{2, 10}, "2.10.11.0"},
    driver_release{{2, 12}, "2.12.11.0"}, driver_release{{2, 13}, "2.13.4.0"},
    driver_release{{2, 14}, "2.14.5.0"},  driver_release{{2, 15}, "2.15.9.0"},
    driver_release{{2, 16}, "2.16.7.0"},  driver_release{{2, 17}, "2.17.17.0"},
    driver_release{{2, 18}, "2.18.12.0"}, driver_release{{2, 19}, "2.19.64.0"},
    driver_release{{2, 20}, "2.20.28.0"}, driver_release{{2, 21}, "2.21.37.0"},
    driver_release{{2, 23}, "2.23.9.0"},  driver_release{{2, 24}, "2.24.7.0"},
    driver_release{{2, 25}, "2.25.4.0"},
};

std::string short_name(const driver_release& r) {
    return fmt::format("{}.{}", r.version.major, r.version.minor);
}

} // namespace

std::span<const driver_release> known_releases() { return releases; }

const driver_release& default_release() { return releases[releases.size() - 2]; }

const driver_release& find_release(std::string_view text) {
    const auto it = std::find_if(releases.begin(), releases.end(), [&](const driver_release& r) {
        return r.tag == text || short_name(r) == text;
    });
    if (it == releases.end()) {
        throw unknown_driver_version_error(
            fmt::format("unknown driver version '{}'; known: {}", text, known_release_list()));
    }
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
