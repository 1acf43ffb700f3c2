#include "tree_path.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

namespace neuron::conformance {

std::optional<std::string> tree_path_refusal(std::string_view path) {
    if (path.starts_with('/')) {
        return fmt::format("a path is relative to the tree's root, such as neuron0/core_count, not '{}'",
                           common::printable(path, 200));
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        if (path.substr(start, end - start) == "..") {
            return fmt::format("a path stays inside the tree: '..' is not allowed in '{}'", common::printable(path, 200));
        }
        start = end + 1;
    }
    return std::nullopt;
}

} // namespace neuron::conformance
