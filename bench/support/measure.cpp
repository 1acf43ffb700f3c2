#include "support/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace neuron::bench {
namespace {

bool g_missed = false;

std::string target_text(const figure& f) {
    switch (f.judged) {
    case goal::ratio_at_most: return fmt::format("ratio <= {:g}", f.target);
    case goal::ratio_at_least: return fmt::format("ratio >= {:g}", f.target);
    case goal::value_at_most: return fmt::format("<= {}", format_value(f.target, f.unit));
    case goal::info: return "info";
    }
    return "";
}

} // namespace

double samples::percentile(double p) const {
    if (m_ns.empty()) return 0;
    auto sorted = m_ns;
    std::sort(sorted.begin(), sorted.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size()))) - 1;
    return sorted[std::min(rank, sorted.size() - 1)];
}

double samples::mean() const {
    if (m_ns.empty()) return 0;
    return std::accumulate(m_ns.begin(), m_ns.end(), 0.0) / static_cast<double>(m_ns.size());
}

bool figure::met() const {
    switch (judged) {
    case goal::ratio_at_most: return ratio() <= target;
    case goal::ratio_at_least: return ratio() >= target;
    case goal::value_at_most: return ours <= target;
    case goal::info: return true;
    }
    return false;
}

std::string format_value(double value, const std::string& unit) {
    if (unit == "files/s" || unit == "events/s" || unit == "reads/s") return fmt::format("{:.0f} {}", value, unit);
    return fmt::format("{:.2f} {}", value, unit);
}

void print(const figure& f) {
    const auto verdict = f.judged == goal::info ? "INFO" : f.met() ? "PASS" : "MISS";
    if (!f.met()) g_missed = true;
    fmt::print("{:<44} | ours {:>14} | baseline {:>14} | ratio {:>6.2f} | {:<16} | {}\n", f.name,
               format_value(f.ours, f.unit), f.baseline != 0 ? format_value(f.baseline, f.unit) : "-", f.ratio(),
               target_text(f), verdict);
    if (!f.note.empty()) fmt::print("    {}\n", f.note);
    std::fflush(stdout);
}

void print_unmeasured(const std::string& name, const std::string& why) {
    fmt::print("{:<44} | not measured: {}\n", name, why);
    std::fflush(stdout);
}

bool all_met() { return !g_missed; }

} // namespace neuron::bench
