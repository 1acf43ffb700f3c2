#pragma once

// Measuring side by side: samples, their median and p99, and the one line
// per figure that a benchmark prints (name, ours, baseline, ratio, target,
// PASS/MISS).

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace neuron::bench {

using clock = std::chrono::steady_clock;
using nanoseconds = std::chrono::nanoseconds;

// Durations of single operations, in nanoseconds.
class samples {
public:
    void add(nanoseconds d) { m_ns.push_back(static_cast<double>(d.count())); }
    void add_ns(double ns) { m_ns.push_back(ns); }
    std::size_t size() const { return m_ns.size(); }
    double median() const { return percentile(50); }
    double p99() const { return percentile(99); }
    double percentile(double p) const;
    double mean() const;

private:
    std::vector<double> m_ns;
};

// Times `op` once.
template <typename F>
nanoseconds time_once(F&& op) {
    const auto start = clock::now();
    op();
    return clock::now() - start;
}

// How a figure is judged against its target.
enum class goal {
    ratio_at_most,  // ours / baseline <= target
    ratio_at_least, // ours / baseline >= target
    value_at_most,  // ours <= target (in the figure's unit)
    info,           // reported, not judged
};

struct figure {
    std::string name;
    double ours = 0;
    double baseline = 0;
    std::string unit; // "us", "files/s", "MiB" ...
    goal judged = goal::info;
    double target = 0;
    std::string note; // what the baseline is, what else was seen

    bool met() const;
    double ratio() const { return baseline != 0 ? ours / baseline : 0; }
};

// "name | ours | baseline | ratio | target | PASS": one line, flushed.
void print(const figure& f);
// A figure that could not be measured here, with the reason.
void print_unmeasured(const std::string& name, const std::string& why);

// Every figure printed so far was met (or informational).
bool all_met();

std::string format_value(double value, const std::string& unit);

} // namespace neuron::bench
