#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace neuron::common {

struct yaml_shape_limits {
    std::uint64_t max_nodes;
    std::size_t max_depth;
    std::size_t max_map_keys;
};

// Streams the YAML text through yaml-cpp's event parser, without building
// nodes, and refuses with yaml_error what no walker of the loaded nodes could
// finish: an alias inside the node its anchor names (a cycle), a document
// whose aliases expand to more than `max_nodes` nodes or deeper than
// `max_depth` levels (each alias counts as the whole subtree it repeats), a
// map of more than `max_map_keys` keys (which yaml-cpp loads in quadratic
// time), and a second document in the stream. yaml-cpp's own syntax errors
// become yaml_error too.
void check_yaml_shape(std::string_view text, const std::string& source, const yaml_shape_limits& limits);

} // namespace neuron::common
