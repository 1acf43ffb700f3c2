#pragma once

#include "neuron/conformance/text_template.h"

#include <cstdint>
#include <optional>
#include <string>

namespace neuron::conformance {

// What the text of a read must be. Every check given must hold.
struct value_check {
    std::optional<text_template> equals;  // exactly these bytes
    std::optional<text_template> matches; // an ECMAScript regular expression matching the whole text
    // Numbers may hold placeholders ("{n}"), filled in and read as a u64 when checked.
    std::optional<text_template> number; // a decimal u64 and a newline, equal to this
    std::optional<text_template> at_least;
    std::optional<text_template> at_most;
    bool unchanged = false;                    // the same text as this file's previous read
    bool changed = false;                      // other text than this file's previous read
    std::optional<text_template> increased_by; // as a u64, previous + N (mod 2^64)
    std::optional<int> error;                  // the read fails with this errno

    bool compares_with_previous() const { return unchanged || changed || increased_by.has_value(); }
    bool empty() const {
        return !equals && !matches && !number && !at_least && !at_most && !compares_with_previous() && !error;
    }
};

// The outcome of a read as a check sees it.
struct read_result {
    int error = 0; // 0, or the errno of open(2) or read(2)
    std::string text;
};

// Nothing when `now` passes every check, else what failed ("expected ...,
// got ..."). `previous` is this file's previous read in the scenario, if any.
std::optional<std::string> check_value(const value_check& check, const bindings& values, const read_result& now,
                                       const std::optional<read_result>& previous);

// The value of "%llu\n" text, as the driver prints counters; nothing otherwise.
std::optional<std::uint64_t> counter_value(const std::string& text);

// "\"12, 3\\n\"": text as a C string literal, for messages.
std::string quote_text(std::string_view text);

} // namespace neuron::conformance
