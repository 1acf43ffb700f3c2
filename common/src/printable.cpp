#include "neuron/common/printable.h"

#include <string>

namespace neuron::common {
namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at text[i], or 0 when it is not
// one (overlong forms, surrogates and values above U+10FFFF are not).
std::size_t sequence_length(std::string_view text, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const auto lead = at(0);
    const std::size_t left = text.size() - i;
    if (lead >= 0xC2 && lead <= 0xDF) return left >= 2 && continuation(at(1)) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (left < 3 || !continuation(at(1)) || !continuation(at(2))) return 0;
        if (lead == 0xE0 && at(1) < 0xA0) return 0; // overlong
        if (lead == 0xED && at(1) > 0x9F) return 0; // a surrogate
        return 3;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (left < 4 || !continuation(at(1)) || !continuation(at(2)) || !continuation(at(3))) return 0;
        if (lead == 0xF0 && at(1) < 0x90) return 0; // overlong
        if (lead == 0xF4 && at(1) > 0x8F) return 0; // above U+10FFFF
        return 4;
    }
    return 0;
}

// A valid sequence that must still not reach a terminal or an XML file: the
// C1 controls (U+0080..U+009F; U+009B is a CSI to some terminals) and the
// noncharacters U+FFFE and U+FFFF.
bool unprintable_sequence(std::string_view sequence) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(sequence[k]); };
    if (sequence.size() == 2) return byte(0) == 0xC2 && byte(1) <= 0x9F;
    return sequence.size() == 3 && byte(0) == 0xEF && byte(1) == 0xBF && byte(2) >= 0xBE;
}

void escape_byte(std::string& out, unsigned char c) {
    switch (c) {
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default: {
        constexpr std::string_view digits = "0123456789abcdef";
        out += "\\x";
        out += digits[c >> 4];
        out += digits[c & 0xF];
    }
    }
}

std::string escaped(std::string_view text, bool escape_backslash) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7F) {
                escape_byte(out, c);
            } else if (c == '\\' && escape_backslash) {
                out += "\\\\";
            } else {
                out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        const auto length = sequence_length(text, i);
        if (length == 0) {
            escape_byte(out, c);
            ++i;
            continue;
        }
        const auto sequence = text.substr(i, length);
        if (unprintable_sequence(sequence)) {
            for (const char b : sequence) escape_byte(out, static_cast<unsigned char>(b));
        } else {
            out += sequence;
        }
        i += length;
    }
    return out;
}

} // namespace

std::string printable(std::string_view text) { return escaped(text, true); }

std::string printable(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return printable(text);
    auto cut = limit;
    // Cut before a multi-byte character rather than through it.
    while (cut > 0 && limit - cut < 3 && continuation(static_cast<unsigned char>(text[cut]))) --cut;
    return printable(text.substr(0, cut)) + "...(" + std::to_string(text.size()) + " bytes)";
}

std::string printable_message(std::string_view text) { return escaped(text, false); }

std::string printable_lines(std::string_view text) {
    std::string out;
    std::size_t start = 0;
    for (;;) {
        const auto end = text.find('\n', start);
        out += escaped(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start), false);
        if (end == std::string_view::npos) return out;
        out += '\n';
        start = end + 1;
    }
}

} // namespace neuron::common
