#include "neuron/sysfs/kernel_parse.h"

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

} // namespace

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
    if (negative) text.remove_prefix(1);
    else if (!text.empty() && text.front() == '+') text.remove_prefix(1);
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

bool sysfs_streq(std::string_view a, std::string_view b) { return drop_newline(a) == drop_newline(b); }

} // namespace neuron::sysfs
