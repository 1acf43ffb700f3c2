#include "neuron/conformance/value_check.h"

#include "regex_limits.h"

#include "neuron/common/posix_names.h"

#include <fmt/format.h>

#include <charconv>
#include <regex>

namespace neuron::conformance {
std::optional<std::uint64_t> counter_value(const std::string& text) {
    if (text.size() < 2 || text.back() != '\n') return std::nullopt;
    std::uint64_t n = 0;
    const auto* end = text.data() + text.size() - 1;
    const auto [at, ec] = std::from_chars(text.data(), end, n);
    if (ec != std::errc() || at != end || text[0] == '+' || text[0] == '-') return std::nullopt;
    return n;
}

namespace {

std::string shown(const read_result& r) { return r.error != 0 ? common::errno_name(r.error) : quote_text(r.text); }

} // namespace

std::string quote_text(std::string_view text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) == 0x7f) {
                out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::optional<std::string> check_value(const value_check& check, const bindings& values, const read_result& now,
                                       const std::optional<read_result>& previous) {
    if (check.error) {
        if (now.error == *check.error) return std::nullopt;
        return fmt::format("expected the read to fail with {}, got {}", common::errno_name(*check.error), shown(now));
    }
    if (now.error != 0) return fmt::format("the read failed with {}", common::errno_name(now.error));
    if (check.equals) {
        const auto want = check.equals->expand(values);
        if (now.text != want) return fmt::format("expected {}, got {}", quote_text(want), quote_text(now.text));
    }
    if (check.matches) {
        const auto pattern = check.matches->expand(values);
        // The parser checked the pattern without its values.
        if (const auto why = regex_refusal(pattern)) return *why;
        if (!std::regex_match(now.text, std::regex(pattern))) {
            return fmt::format("expected text matching /{}/, got {}", pattern, quote_text(now.text));
        }
    }
    // A number of the scenario's, placeholders filled in.
    std::optional<std::string> bad;
    const auto wanted = [&](const std::optional<text_template>& t, std::string_view what) -> std::uint64_t {
        if (!t || bad) return 0;
        const auto text = t->expand(values);
        const auto n = counter_value(text + "\n");
        if (!n) bad = fmt::format("{} must be a whole number, not {}", what, quote_text(text));
        return n.value_or(0);
    };
    const auto number = wanted(check.number, "number");
    const auto at_least = wanted(check.at_least, "at_least");
    const auto at_most = wanted(check.at_most, "at_most");
    const auto increased_by = wanted(check.increased_by, "increased_by");
    if (bad) return bad;
    const bool numeric = check.number || check.at_least || check.at_most || check.increased_by;
    const auto n = counter_value(now.text);
    if (numeric && !n) return fmt::format("expected a number and a newline, got {}", quote_text(now.text));
    if (check.number && *n != number) return fmt::format("expected {}, got {}", number, *n);
    if (check.at_least && *n < at_least) return fmt::format("expected at least {}, got {}", at_least, *n);
    if (check.at_most && *n > at_most) return fmt::format("expected at most {}, got {}", at_most, *n);
    if (check.compares_with_previous()) {
        if (!previous) return std::string("nothing to compare with: the scenario has not read this file before");
        if (previous->error != 0)
            return fmt::format("the previous read of this file failed with {}", common::errno_name(previous->error));
        if (check.unchanged && now.text != previous->text) {
            return fmt::format("expected it unchanged from {}, got {}", quote_text(previous->text),
                               quote_text(now.text));
        }
        if (check.changed && now.text == previous->text)
            return fmt::format("expected a change from {}", quote_text(previous->text));
        if (check.increased_by) {
            const auto before = counter_value(previous->text);
            if (!before) return fmt::format("the previous read was not a number: {}", quote_text(previous->text));
            const std::uint64_t want = *before + increased_by; // wraps as the driver's u64 does
            if (*n != want) {
                return fmt::format("expected {} + {} = {}, got {}", *before, increased_by, want, *n);
            }
        }
    }
    return std::nullopt;
}

} // namespace neuron::conformance
