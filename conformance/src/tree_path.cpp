#include "tree_path.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

namespace neuron::conformance {

std::span<const std::string_view> host_path_prefixes() {
    static constexpr std::string_view prefixes[] = {"/sys/class/neuron_device", "/sys/devices/virtual/neuron_device",
                                                    "/sys/dev/char", "/dev/neuron", "/proc/devices"};
    return prefixes;
}

bool is_host_path(std::string_view path) {
    for (const auto prefix : host_path_prefixes()) {
        if (path.starts_with(prefix)) return true;
    }
    return false;
}

std::optional<std::string> tree_path_refusal(std::string_view path) {
    if (path.starts_with('/') && !is_host_path(path)) {
        return fmt::format("a path is relative to the tree's root, such as neuron0/core_count, or one of the driver's "
                           "host paths below /sys/class/neuron_device, /sys/devices/virtual/neuron_device, "
                           "/sys/dev/char, /dev/neuron* or /proc/devices; not '{}'",
                           common::printable(path, 200));
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        if (path.substr(start, end - start) == "..") {
            return fmt::format("a path stays inside the tree: '..' is not allowed in '{}'",
                               common::printable(path, 200));
        }
        start = end + 1;
    }
    return std::nullopt;
}

} // namespace neuron::conformance
