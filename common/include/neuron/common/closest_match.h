#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace neuron::common {

// The candidate nearest to `word` by edit distance, if it is close enough to
// be a likely typo (at most a third of the word's length, and at least 1).
// A word over 128 characters gets none (no name we suggest is that long, and
// comparing long words costs the product of their lengths).
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

} // namespace neuron::common
