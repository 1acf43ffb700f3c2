#include "ls_table.h"

#include <algorithm>

namespace neuron::tools::detail {
namespace {

std::string spaces(std::size_t n) { return std::string(n, ' '); }

std::string centred(const std::string& text, std::size_t width) {
    const auto gap = width - display_width(text);
    return spaces(gap / 2) + text + spaces(gap - gap / 2);
}

std::string left(const std::string& text, std::size_t width) { return text + spaces(width - display_width(text)); }

std::string rule(const std::vector<std::size_t>& widths) {
    std::string out = "+";
    for (const auto w : widths) out += std::string(w + 2, '-') + "+";
    return out + "\n";
}

template <typename Cell>
std::string line(const std::vector<std::size_t>& widths, Cell cell) {
    std::string out = "|";
    for (std::size_t c = 0; c < widths.size(); ++c) out += " " + cell(c) + " |";
    return out + "\n";
}

} // namespace

std::size_t display_width(std::string_view text) {
    // Continuation bytes (10xxxxxx) do not start a character.
    return static_cast<std::size_t>(std::count_if(
        text.begin(), text.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0U) != 0x80U; }));
}

std::string truncated(std::string_view text, std::size_t limit) {
    if (display_width(text) <= limit) return std::string(text);
    std::size_t kept = 0;
    std::size_t end = 0;
    for (; end < text.size(); ++end) {
        if ((static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U) continue;
        if (kept == limit - 3) break;
        ++kept;
    }
    return std::string(text.substr(0, end)) + "...";
}

std::string render_table(const std::vector<table_column>& columns, const std::vector<table_row>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& c : columns) widths.push_back(std::max(display_width(c.top), display_width(c.bottom)));
    for (const auto& r : rows) {
        for (std::size_t c = 0; c < widths.size() && c < r.cells.size(); ++c) {
            widths[c] = std::max(widths[c], display_width(r.cells[c]));
        }
    }
    std::string out = rule(widths);
    out += line(widths, [&](std::size_t c) { return centred(columns[c].top, widths[c]); });
    out += line(widths, [&](std::size_t c) { return centred(columns[c].bottom, widths[c]); });
    out += rule(widths);
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& cells = rows[r].cells;
        out +=
            line(widths, [&](std::size_t c) { return left(c < cells.size() ? cells[c] : std::string(), widths[c]); });
        if (rows[r].rule_after && r + 1 < rows.size()) out += rule(widths);
    }
    return out + rule(widths);
}

} // namespace neuron::tools::detail
