#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace neuron::conformance {

using nanoseconds = std::chrono::nanoseconds;

// "250ms", "2s", "1500us", "10ns": a whole number of 0 or more and its unit,
// nothing else. Nothing for any other text or a value beyond ~292 years.
std::optional<nanoseconds> parse_duration(std::string_view text);

// The shortest exact form: "2s", "250ms", "1500us", "7ns".
std::string format_duration(nanoseconds d);

// Seconds with two decimals, for reports: "0.25s".
std::string format_seconds(nanoseconds d);

} // namespace neuron::conformance
