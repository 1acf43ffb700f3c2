#include "neuron/tools/ls_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace neuron::tools {
namespace {

// U+25C4, U+2013 twice, U+25BA: a link both ways; `*` marks a wrap-around.
constexpr std::string_view link = "\u25c4\u2013\u2013\u25ba";
constexpr std::string_view wrap_in = "*\u2013\u2013\u25ba";
constexpr std::string_view wrap_out = "\u25c4\u2013\u2013*";
constexpr std::string_view no_link = "    ";
constexpr std::string_view up = "\u25b2", bar = "\u2502", down = "\u25bc";

class drawing {
public:
    explicit drawing(const host_sample& h) : m_devices(h.devices) {}

    std::size_t count() const { return m_devices.size(); }

    // Either device lists the other.
    bool linked(std::size_t a, std::size_t b) const { return lists(a, b) || lists(b, a); }

    std::string cell(std::size_t i) const { return fmt::format("[{:2} ]", m_devices[i].index); }

    // Four to a row when 16 devices have links within a column (trn1's and
    // trn2's torus); else one row (inf1's and inf2's chains and rings).
    std::size_t columns() const {
        if (count() != 16) return count();
        for (std::size_t a = 0; a < count(); ++a) {
            for (std::size_t b = a + 4; b < count(); b += 4) {
                if (linked(a, b)) return 4;
            }
        }
        return count();
    }

private:
    bool lists(std::size_t a, std::size_t b) const {
        return std::ranges::find(m_devices[a].connected, m_devices[b].index) != m_devices[a].connected.end();
    }

    const std::vector<device_sample>& m_devices;
};

// One row: a chain, or a ring when its ends are linked.
std::string row_drawing(const drawing& d, bool& wraps) {
    const auto n = d.count();
    wraps = n > 2 && d.linked(0, n - 1);
    std::string out = "\n" + std::string(wraps ? wrap_in : std::string_view("  "));
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) out += d.linked(i - 1, i) ? link : no_link;
        out += d.cell(i);
    }
    return out + std::string(wraps ? wrap_out : std::string_view()) + "\n";
}

// Rows of `columns` devices; vertical links under each cell's number, the
// lines as wide as a row of cells.
std::string grid_drawing(const drawing& d, std::size_t columns, bool& wraps) {
    const auto rows = d.count() / columns;
    const auto at = [&](std::size_t r, std::size_t c) { return r * columns + c; };
    const auto vertical = [&](const std::function<std::string_view(std::size_t)>& mark) {
        std::string line(no_link);
        for (std::size_t c = 0; c < columns; ++c) line += fmt::format("  {}  {}", mark(c), no_link);
        return line + "\n";
    };
    const auto column_wraps = [&](std::size_t c) { return rows > 2 && d.linked(at(0, c), at(rows - 1, c)); };
    const auto when = [](bool yes, std::string_view mark) { return yes ? mark : std::string_view(" "); };
    wraps = false;

    std::string out;
    for (const auto mark : {std::string_view("*"), bar, down}) {
        out += vertical([&](std::size_t c) { return when(column_wraps(c), mark); });
    }
    for (std::size_t r = 0; r < rows; ++r) {
        const bool row_wraps = columns > 2 && d.linked(at(r, 0), at(r, columns - 1));
        out += row_wraps ? wrap_in : no_link;
        for (std::size_t c = 0; c < columns; ++c) {
            if (c > 0) out += d.linked(at(r, c - 1), at(r, c)) ? link : no_link;
            out += d.cell(at(r, c));
        }
        out += std::string(row_wraps ? wrap_out : no_link) + "\n";
        wraps = wraps || row_wraps;
        const bool last = r + 1 == rows;
        for (const auto mark : {up, bar, last ? std::string_view("*") : down}) {
            out += vertical(
                [&](std::size_t c) { return when(last ? column_wraps(c) : d.linked(at(r, c), at(r + 1, c)), mark); });
        }
    }
    for (std::size_t c = 0; c < columns; ++c) wraps = wraps || column_wraps(c);
    return out;
}

} // namespace

std::string ls_topology(const host_sample& h) {
    const drawing d(h);
    if (d.count() < 2) return {};
    const auto columns = d.columns();
    bool wraps = false;
    std::string out = "Neuron Device Topology\n";
    out += columns == d.count() ? row_drawing(d, wraps) : grid_drawing(d, columns, wraps);
    if (wraps) out += fmt::format("\nLegend:\n\n        {} = Wrap-around link\n", wrap_in);
    return out;
}

} // namespace neuron::tools
