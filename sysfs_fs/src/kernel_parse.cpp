#include "neuron/sysfs/kernel_parse.h"

#include <algorithm>
#include <limits>

namespace neuron::sysfs {
namespace {

std::string_view drop_newline(std::string_view s) {
    if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
    return s;
}

std::optional<std::uint64_t> parse_digits(std::string_view digits) {
    if (digits.empty()) return std::nullopt;
    std::uint64_t value = 0;
    for (const char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return std::nullopt;
        value = value * 10 + d;
    }
    return value;
}

std::string_view drop_terminator(std::string_view s) {
    if (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.remove_suffix(1);
    return s;
}

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// uuid_is_valid: 8-4-4-4-12 hex digits.
bool is_uuid(std::string_view s) {
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool hyphen = i == 8 || i == 13 || i == 18 || i == 23;
        if (hyphen ? s[i] != '-' : !is_hex(s[i])) return false;
    }
    return true;
}

// kobject_action_args: a UUID, then " KEY=VALUE" pairs of letters and digits.
bool valid_uevent_arguments(std::string_view args) {
    args = drop_terminator(args);
    if (args.size() < 36 || !is_uuid(args.substr(0, 36))) return false;
    std::string_view rest = args.substr(36);
    while (!rest.empty()) {
        if (rest.front() != ' ') return false;
        rest.remove_prefix(1);
        const auto eq = rest.find('=');
        if (eq == 0 || eq == std::string_view::npos) return false;
        for (const char c : rest.substr(0, eq)) {
            if (!is_alnum(c)) return false;
        }
        rest.remove_prefix(eq + 1);
        const auto end = std::min(rest.find(' '), rest.size());
        if (end == 0) return false;
        for (const char c : rest.substr(0, end)) {
            if (!is_alnum(c)) return false;
        }
        rest.remove_prefix(end);
    }
    return true;
}

} // namespace

bool valid_synthetic_uevent(std::string_view written) {
    static constexpr std::string_view actions[] = {"add",    "remove",  "change", "move",
                                                   "online", "offline", "bind",   "unbind"};
    const auto text = drop_terminator(written);
    if (text.empty()) return false;
    const auto space = text.find(' ');
    const auto action = text.substr(0, space);
    if (std::find(std::begin(actions), std::end(actions), action) == std::end(actions)) return false;
    if (space == std::string_view::npos) return true;
    // The arguments are measured from the original count, terminator included.
    return valid_uevent_arguments(written.substr(space + 1));
}

std::string_view store_text(std::string_view written) {
    if (written.size() > sysfs_page_size) written = written.substr(0, sysfs_page_size);
    const auto nul = written.find('\0');
    return nul == std::string_view::npos ? written : written.substr(0, nul);
}

std::optional<std::uint64_t> parse_kstrtoull(std::string_view text) {
    text = drop_newline(text);
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    return parse_digits(text);
}

std::optional<std::int64_t> parse_kstrtoll(std::string_view text) {
    text = drop_newline(text);
    const bool negative = !text.empty() && text.front() == '-';
    if (negative)
        text.remove_prefix(1);
    else if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    const auto magnitude = parse_digits(text);
    if (!magnitude) return std::nullopt;
    constexpr auto max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (negative) {
        if (*magnitude > max + 1) return std::nullopt;
        return static_cast<std::int64_t>(0 - *magnitude);
    }
    if (*magnitude > max) return std::nullopt;
    return static_cast<std::int64_t>(*magnitude);
}

bool sysfs_streq(std::string_view a, std::string_view b) {
    // lib/string.c: walk the common prefix; a lone '\n' before the end of
    // one string counts as its end.
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const auto rest_a = a.substr(i);
    const auto rest_b = b.substr(i);
    return (rest_a.empty() && rest_b.empty()) || (rest_a.empty() && rest_b == "\n") ||
           (rest_a == "\n" && rest_b.empty());
}

} // namespace neuron::sysfs
