#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace neuron::common {

// The candidate nearest to `word` by edit distance, if it is close enough to
// be a likely typo (at most a third of the word's length, and at least 1).
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

} // namespace neuron::common
