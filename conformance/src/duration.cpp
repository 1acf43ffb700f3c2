#include "neuron/conformance/duration.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>

namespace neuron::conformance {
namespace {

struct unit {
    std::string_view suffix;
    std::int64_t ns;
};

// Longest suffix first where one ends another ("ms" before "s").
constexpr std::array units{unit{"ns", 1}, unit{"us", 1'000}, unit{"ms", 1'000'000}, unit{"s", 1'000'000'000}};

} // namespace

std::optional<nanoseconds> parse_duration(std::string_view text) {
    for (const auto& u : units) {
        if (!text.ends_with(u.suffix)) continue;
        const auto digits = text.substr(0, text.size() - u.suffix.size());
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
        if (n > std::numeric_limits<std::int64_t>::max() / u.ns) return std::nullopt;
        return nanoseconds(n * u.ns);
    }
    return std::nullopt;
}

std::string format_duration(nanoseconds d) {
    const auto n = d.count();
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
        if (n != 0 && n % it->ns == 0) return fmt::format("{}{}", n / it->ns, it->suffix);
    }
    return fmt::format("{}ns", n);
}

std::string format_seconds(nanoseconds d) { return fmt::format("{:.2f}s", static_cast<double>(d.count()) / 1e9); }

} // namespace neuron::conformance
