#pragma once

// Limits on a scenario's `matches:` pattern, checked before std::regex sees
// it: libstdc++ compiles a pattern recursively (a stack frame per term and
// per nested group) and copies what a {m,n} repeats once per count, so a
// long, deeply nested or much-repeated pattern overflows the stack or
// builds millions of states.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neuron::conformance {

inline constexpr std::size_t max_regex_length = 1024;     // characters
inline constexpr std::size_t max_regex_nesting = 32;      // groups inside groups
inline constexpr std::uint64_t max_regex_states = 10'000; // terms, each {m,n} counted as its copies

// Why `pattern` is refused, or nothing when it is within the limits (it may
// still be an invalid regular expression; std::regex says so).
std::optional<std::string> regex_refusal(std::string_view pattern);

} // namespace neuron::conformance
