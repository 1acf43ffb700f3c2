#include "neuron/tools/top_screen.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace neuron::tools {

std::string top_bytes(std::uint64_t bytes) {
    static constexpr std::array<std::string_view, 6> units{"B", "KB", "MB", "GB", "TB", "PB"};
    double value = static_cast<double>(bytes);
    std::size_t unit = 0;
    // Step up while the value, as printed with one decimal, would reach 1024.
    while (unit + 1 < units.size() && std::round(value * 10) >= 1024 * 10) {
        value /= 1024;
        ++unit;
    }
    return fmt::format("{:.1f}{}", value, units[unit]);
}

namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

} // namespace

std::size_t top_columns(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) n += continuation(c) ? 0 : 1;
    return n;
}

std::string top_fit(std::string_view text, std::size_t width) {
    std::size_t columns = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (continuation(text[i])) continue;
        if (columns == width) return std::string(text.substr(0, i));
        ++columns;
    }
    return std::string(text);
}

std::string top_pad(std::string_view text, std::size_t width) {
    std::string out = top_fit(text, width);
    out.append(width - top_columns(out), ' ');
    return out;
}

} // namespace neuron::tools
