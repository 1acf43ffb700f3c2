#include "neuron/tools/logrus_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ctime>
#include <optional>

namespace neuron::tools {
namespace {

std::string_view name_of(logrus_level level) {
    switch (level) {
    case logrus_level::panic: return "panic";
    case logrus_level::fatal: return "fatal";
    case logrus_level::error: return "error";
    case logrus_level::warning: return "warning";
    case logrus_level::info: return "info";
    case logrus_level::debug: return "debug";
    case logrus_level::trace: return "trace";
    }
    return "unknown";
}

int colour_of(logrus_level level) {
    switch (level) {
    case logrus_level::debug:
    case logrus_level::trace: return 37;   // gray
    case logrus_level::warning: return 33; // yellow
    case logrus_level::error:
    case logrus_level::fatal:
    case logrus_level::panic: return 31; // red
    case logrus_level::info: break;
    }
    return 36; // blue
}

struct decoded_rune {
    char32_t rune;
    std::size_t width;
};

// The next rune as Go's utf8.DecodeRuneInString reads it: nothing for a byte
// that starts no valid sequence (overlong forms and surrogates included).
std::optional<decoded_rune> decode(std::string_view s) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char b0 = byte(0);
    if (b0 < 0x80) return decoded_rune{b0, 1};
    // The lead byte: how many bytes, its payload bits, the least rune that needs them.
    struct lead {
        unsigned char mask, tag;
        std::size_t width;
        char32_t least;
    };
    static constexpr std::array leads{lead{0xe0, 0xc0, 2, 0x80}, lead{0xf0, 0xe0, 3, 0x800},
                                      lead{0xf8, 0xf0, 4, 0x10000}};
    const auto* form = std::find_if(leads.begin(), leads.end(), [b0](const lead& l) { return (b0 & l.mask) == l.tag; });
    if (form == leads.end()) return std::nullopt;
    const std::size_t width = form->width;
    const char32_t least = form->least;
    char32_t rune = b0 & static_cast<unsigned char>(~form->mask);
    if (s.size() < width) return std::nullopt;
    for (std::size_t i = 1; i < width; ++i) {
        if ((byte(i) & 0xc0) != 0x80) return std::nullopt;
        rune = (rune << 6) | (byte(i) & 0x3f);
    }
    if (rune < least || rune > 0x10ffff || (rune >= 0xd800 && rune <= 0xdfff)) return std::nullopt;
    return decoded_rune{rune, width};
}

// Go's strconv.IsPrint for the characters it refuses outside ASCII: the C1
// controls, the spaces other than ' ', the line and paragraph separators, the
// common format characters and private use. Unassigned code points, which Go
// also escapes, are taken as printable (that needs the Unicode tables).
bool printable(char32_t r) {
    if (r < 0x80) return r >= 0x20 && r < 0x7f;
    if (r <= 0xa0 || r == 0xad) return false;
    struct range {
        char32_t first, last;
    };
    static constexpr std::array refused{
        range{0x600, 0x605},     range{0x61c, 0x61c},      range{0x6dd, 0x6dd},   range{0x70f, 0x70f},
        range{0x1680, 0x1680},   range{0x180e, 0x180e},    range{0x2000, 0x200f}, range{0x2028, 0x202f},
        range{0x205f, 0x2064},   range{0x2066, 0x206f},    range{0x3000, 0x3000}, range{0xe000, 0xf8ff},
        range{0xfeff, 0xfeff},   range{0xfff9, 0xfffb},    range{0xfffe, 0xffff}, range{0xe0001, 0xe0001},
        range{0xe0020, 0xe007f}, range{0xf0000, 0x10ffff},
    };
    return std::none_of(refused.begin(), refused.end(), [r](const range& x) { return r >= x.first && r <= x.last; });
}

void append_escaped(std::string& out, char32_t r) {
    switch (r) {
    case '\a': out += "\\a"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\v': out += "\\v"; return;
    default: break;
    }
    if (r < 0x20 || r == 0x7f) {
        out += fmt::format("\\x{:02x}", static_cast<std::uint32_t>(r));
    } else if (r < 0x10000) {
        out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(r));
    } else {
        out += fmt::format("\\U{:08x}", static_cast<std::uint32_t>(r));
    }
}

// utf8.RuneCountInString: what %-44s counts when it pads.
std::size_t rune_count(std::string_view s) {
    std::size_t count = 0;
    while (!s.empty()) {
        const auto r = decode(s);
        s.remove_prefix(r ? r->width : 1);
        ++count;
    }
    return count;
}

bool needs_quoting(std::string_view value) {
    return std::any_of(value.begin(), value.end(), [](char c) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        return !alnum && std::string_view("-._/@^+").find(c) == std::string_view::npos;
    });
}

std::string value_text(std::string_view value) { return needs_quoting(value) ? go_quoted(value) : std::string(value); }

std::vector<std::pair<std::string, std::string>> sorted_fields(const logrus_entry& entry) {
    auto fields = entry.fields;
    std::sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return fields;
}

} // namespace

std::string go_quoted(std::string_view text) {
    std::string out = "\"";
    while (!text.empty()) {
        const auto r = decode(text);
        if (!r) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text.front()));
            text.remove_prefix(1);
            continue;
        }
        if (r->rune == '"' || r->rune == '\\') {
            out += '\\';
            out += static_cast<char>(r->rune);
        } else if (printable(r->rune)) {
            out.append(text.substr(0, r->width));
        } else {
            append_escaped(out, r->rune);
        }
        text.remove_prefix(r->width);
    }
    out += '"';
    return out;
}

std::string logrus_logfmt_line(const logrus_entry& entry, std::string_view time) {
    std::string line = fmt::format("time={} level={}", value_text(time), name_of(entry.level));
    if (!entry.message.empty()) line += " msg=" + value_text(entry.message);
    for (const auto& [key, value] : sorted_fields(entry)) line += fmt::format(" {}={}", key, value_text(value));
    line += '\n';
    return line;
}

std::string logrus_terminal_line(const logrus_entry& entry, std::chrono::seconds since_start) {
    const int colour = colour_of(entry.level);
    std::string level(name_of(entry.level).substr(0, 4));
    std::transform(level.begin(), level.end(), level.begin(), [](char c) { return static_cast<char>(c - 'a' + 'A'); });
    std::string_view message = entry.message;
    if (message.ends_with('\n')) message.remove_suffix(1);
    const auto padding = 44 - std::min<std::size_t>(44, rune_count(message));
    std::string line = fmt::format("\x1b[{}m{}\x1b[0m[{:04}] {}{} ", colour, level, since_start.count(), message,
                                   std::string(padding, ' '));
    for (const auto& [key, value] : sorted_fields(entry)) {
        line += fmt::format(" \x1b[{}m{}\x1b[0m={}", colour, key, value_text(value));
    }
    line += '\n';
    return line;
}

std::string go_rfc3339(std::chrono::system_clock::time_point when) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(when));
    std::tm local{};
    ::localtime_r(&seconds, &local);
    std::array<char, 32> text{};
    const auto n = std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%S", &local);
    std::string out(text.data(), n);
    if (local.tm_gmtoff == 0) return out + 'Z';
    const long offset_minutes = local.tm_gmtoff / 60;
    const long magnitude = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    return out + fmt::format("{}{:02}:{:02}", offset_minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
}

} // namespace neuron::tools
