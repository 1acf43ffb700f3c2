#pragma once

// The table style of neuron-ls (Go's tablewriter as the tool sets it up):
// `+--+` borders, a two-line header with each word centred, values
// left-aligned with one space either side, every column as wide as its
// longest header word or value.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::tools::detail {

struct table_column {
    std::string top;    // first header line
    std::string bottom; // second; may be empty
};

struct table_row {
    std::vector<std::string> cells; // one per column
    bool rule_after = false;        // a border line follows (ignored on the last row)
};

std::string render_table(const std::vector<table_column>& columns, const std::vector<table_row>& rows);

// Characters as a terminal counts them: UTF-8 code points.
std::size_t display_width(std::string_view text);

// `text` when at most `limit` characters, else its first limit-3 and "...".
std::string truncated(std::string_view text, std::size_t limit);

} // namespace neuron::tools::detail
