#include "neuron/common/closest_match.h"

#include <algorithm>
#include <vector>

namespace neuron::common {
namespace {

// Words longer than this get no suggestion: the names we suggest are short,
// and the cost of a comparison grows with the product of the lengths (the
// word and the candidates may both come from a hostile file).
constexpr std::size_t max_word = 128;

// Optimal string alignment distance: insertions, deletions, substitutions
// and swaps of two adjacent characters each cost 1 ("nmae" is 1 from "name").
// Three rows of the table are all it needs at a time.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                row[j] = std::min(row[j], before[j - 2] + 1);
            }
        }
        std::swap(before, previous);
        std::swap(previous, row);
    }
    return previous[b.size()];
}

} // namespace

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates) {
    if (word.size() > max_word) return std::nullopt;
    const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
    std::optional<std::string> best;
    std::size_t best_distance = limit + 1;
    for (const auto& candidate : candidates) {
        // The distance is at least the difference in length.
        const auto shorter = std::min(word.size(), candidate.size());
        if (std::max(word.size(), candidate.size()) - shorter > limit) continue;
        const auto d = edit_distance(word, candidate);
        if (d < best_distance) {
            best_distance = d;
            best = candidate;
        }
    }
    return best;
}

} // namespace neuron::common
