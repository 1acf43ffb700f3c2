#include "neuron/tools/monitor_config.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <array>
#include <limits>
#include <utility>

namespace neuron::tools {
namespace {

// Go's time.ParseDuration units, with both spellings of micro (U+00B5, U+03BC).
constexpr std::array<std::pair<std::string_view, std::uint64_t>, 9> units{{
    {"ns", 1},
    {"us", 1'000},
    {"\xC2\xB5s", 1'000},
    {"\xCE\xBCs", 1'000},
    {"ms", 1'000'000},
    {"s", nanoseconds_per_second},
    {"m", 60 * nanoseconds_per_second},
    {"h", 3600 * nanoseconds_per_second},
}};

constexpr std::uint64_t max_ns = std::numeric_limits<std::int64_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

duration_result fail(std::string message) { return {0, std::move(message)}; }

} // namespace

duration_result parse_duration(std::string_view text) {
    const auto quoted = common::printable(text, 64);
    const auto invalid = [&] {
        return fail(fmt::format("'{}' is not a duration (a number and a unit: ns, us, ms, s, m or h, as in "
                                "\"1s\", \"500ms\" or \"1m30s\")",
                                quoted));
    };
    std::string_view s = text;
    bool negative = false;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return {0, {}};
    if (s.empty()) return invalid();
    std::uint64_t total = 0;
    while (!s.empty()) {
        if (!is_digit(s.front()) && s.front() != '.') return invalid();
        std::uint64_t whole = 0;
        std::size_t i = 0;
        for (; i < s.size() && is_digit(s[i]); ++i) {
            if (whole > (max_ns - 9) / 10) return fail(fmt::format("'{}' is out of range", quoted));
            whole = whole * 10 + static_cast<std::uint64_t>(s[i] - '0');
        }
        const bool digits_before = i > 0;
        s.remove_prefix(i);
        std::uint64_t fraction = 0;
        double scale = 1;
        bool digits_after = false;
        if (!s.empty() && s.front() == '.') {
            s.remove_prefix(1);
            std::size_t j = 0;
            for (; j < s.size() && is_digit(s[j]); ++j) {
                // Digits past what a 64-bit count holds change nothing a nanosecond can show.
                if (fraction <= (max_ns - 9) / 10) {
                    fraction = fraction * 10 + static_cast<std::uint64_t>(s[j] - '0');
                    scale *= 10;
                }
            }
            digits_after = j > 0;
            s.remove_prefix(j);
        }
        if (!digits_before && !digits_after) return invalid();
        std::size_t u = 0;
        while (u < s.size() && !is_digit(s[u]) && s[u] != '.') ++u;
        if (u == 0) return fail(fmt::format("'{}' has a number without a unit (ns, us, ms, s, m or h)", quoted));
        const auto unit_text = s.substr(0, u);
        s.remove_prefix(u);
        std::uint64_t unit = 0;
        for (const auto& [name, ns] : units) {
            if (name == unit_text) unit = ns;
        }
        if (unit == 0) {
            return fail(fmt::format("unknown unit '{}' in '{}' (units: ns, us, ms, s, m, h)",
                                    common::printable(unit_text, 16), quoted));
        }
        if (whole > max_ns / unit) return fail(fmt::format("'{}' is out of range", quoted));
        std::uint64_t value = whole * unit;
        value += static_cast<std::uint64_t>(static_cast<double>(fraction) * (static_cast<double>(unit) / scale));
        if (value > max_ns || total > max_ns - value) return fail(fmt::format("'{}' is out of range", quoted));
        total += value;
    }
    const auto ns = static_cast<std::int64_t>(total);
    return {negative ? -ns : ns, {}};
}

} // namespace neuron::tools
