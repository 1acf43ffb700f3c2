#pragma once

// Test support: the tree the driver shows, written down from
// driver-sysfs.md independently of the emulator's tree builder: the §1
// diagram of 2.24 expanded for an instance, and the rows of §1's version
// table applied backwards for older releases.

#include <map>
#include <string>
#include <string_view>

namespace neuron::sysfs::testing {

struct spec_entry {
    char type = 'f';    // 'd' directory, 'f' attribute file, 'l' symlink
    unsigned mode = 0;  // permission bits (0777 for links)
    std::string target; // links
    bool operator==(const spec_entry&) const = default;
};

// Paths relative to a /sys-like root: devices/virtual/neuron_device/... and
// class/neuron_device/...
using spec_listing = std::map<std::string, spec_entry>;

// `release` is major.minor, e.g. "2.24", "2.7".
spec_listing expected_listing(std::string_view instance, std::string_view release);

// The same walk of a directory on disk (lstat, not following links).
spec_listing walk_directory(const std::string& root);

} // namespace neuron::sysfs::testing
