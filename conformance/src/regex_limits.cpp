#include "regex_limits.h"

#include <fmt/format.h>

#include <vector>

namespace neuron::conformance {
namespace {

// Walks an ECMAScript pattern as far as its size goes: the terms of each
// group, and what a repeat multiplies. Malformed syntax is let through for
// std::regex to name.
class pattern_size {
public:
    explicit pattern_size(std::string_view pattern) : m_pattern(pattern) {}

    std::optional<std::string> refusal() {
        while (m_at < m_pattern.size()) {
            const char c = m_pattern[m_at++];
            switch (c) {
            case '\\':
                if (m_at < m_pattern.size()) ++m_at;
                if (auto why = atom(1)) return why;
                break;
            case '[':
                skip_bracket();
                if (auto why = atom(1)) return why;
                break;
            case '(':
                if (m_groups.size() >= max_regex_nesting) {
                    return fmt::format("matches nests groups deeper than {} levels", max_regex_nesting);
                }
                // (?:  (?=  (?!
                if (m_at + 1 < m_pattern.size() && m_pattern[m_at] == '?') m_at += 2;
                m_groups.push_back(0);
                m_last = 0;
                break;
            case ')': {
                // An unmatched ')' is std::regex's to name.
                const auto inside = m_groups.empty() ? 0 : m_groups.back();
                if (!m_groups.empty()) m_groups.pop_back();
                if (auto why = atom(inside + 1)) return why;
                break;
            }
            case '{':
                if (auto why = repeat()) return why;
                break;
            case '*':
            case '+':
            case '?':
            case '|':
                if (auto why = add(1)) return why;
                m_last = c == '|' ? 0 : m_last;
                break;
            default:
                if (auto why = atom(1)) return why;
            }
        }
        return std::nullopt;
    }

private:
    // Terms added to the innermost open group (or the whole pattern).
    std::optional<std::string> add(std::uint64_t terms) {
        auto& size = m_groups.empty() ? m_top : m_groups.back();
        size += terms; // each operand is within the budget: no wrap
        if (size > max_regex_states) {
            return fmt::format("matches is too large a pattern: more than {} terms, counting each {{m,n}} as the "
                               "copies it makes of what it repeats",
                               max_regex_states);
        }
        return std::nullopt;
    }

    std::optional<std::string> atom(std::uint64_t terms) {
        m_last = terms;
        return add(terms);
    }

    // [...] with [:class:], [.x.] and [=x=] inside; a ']' first is a literal.
    void skip_bracket() {
        if (m_at < m_pattern.size() && m_pattern[m_at] == '^') ++m_at;
        if (m_at < m_pattern.size() && m_pattern[m_at] == ']') ++m_at;
        while (m_at < m_pattern.size() && m_pattern[m_at] != ']') {
            const char c = m_pattern[m_at++];
            if (c == '\\' && m_at < m_pattern.size()) {
                ++m_at;
            } else if (c == '[' && m_at < m_pattern.size() &&
                       (m_pattern[m_at] == ':' || m_pattern[m_at] == '.' || m_pattern[m_at] == '=')) {
                const char kind = m_pattern[m_at];
                const auto end = m_pattern.find(std::string{kind, ']'}, m_at + 1);
                m_at = end == std::string_view::npos ? m_pattern.size() : end + 2;
            }
        }
        if (m_at < m_pattern.size()) ++m_at;
    }

    // {m}, {m,} or {m,n} after an atom: the atom copied up to n times (m + 1
    // for an open end).
    std::optional<std::string> repeat() {
        const auto start = m_at;
        const auto count = [&]() -> std::optional<std::uint64_t> {
            std::uint64_t n = 0;
            const auto first = m_at;
            while (m_at < m_pattern.size() && m_pattern[m_at] >= '0' && m_pattern[m_at] <= '9') {
                n = std::min<std::uint64_t>(n * 10 + static_cast<std::uint64_t>(m_pattern[m_at] - '0'),
                                            max_regex_states + 1);
                ++m_at;
            }
            if (m_at == first) return std::nullopt;
            return n;
        };
        const auto low = count();
        std::optional<std::uint64_t> high = low;
        if (low && m_at < m_pattern.size() && m_pattern[m_at] == ',') {
            ++m_at;
            high = count();
            if (!high) high = *low + 1;
        }
        if (!low || m_at >= m_pattern.size() || m_pattern[m_at] != '}') {
            m_at = start; // not a repeat: a literal '{'
            return atom(1);
        }
        ++m_at;
        const auto copies = std::max<std::uint64_t>(*high, 1) - 1; // the atom itself is counted already
        if (m_last != 0 && copies > max_regex_states / m_last) return add(max_regex_states + 1);
        return add(m_last * copies + 1);
    }

    std::string_view m_pattern;
    std::size_t m_at = 0;
    std::uint64_t m_top = 0;
    std::vector<std::uint64_t> m_groups; // terms so far in each open group
    std::uint64_t m_last = 0;            // terms of the atom just read (what a repeat would copy)
};

} // namespace

std::optional<std::string> regex_refusal(std::string_view pattern) {
    if (pattern.size() > max_regex_length) {
        return fmt::format("matches has {} characters; a pattern has at most {}", pattern.size(), max_regex_length);
    }
    return pattern_size(pattern).refusal();
}

} // namespace neuron::conformance
