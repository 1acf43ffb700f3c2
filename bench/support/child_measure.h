#pragma once

// A measurement run in a child process: SystemC allows one simulation per
// process, so each side of a simulation benchmark runs in a child of its
// own and reports back through a pipe.

#include <functional>
#include <optional>

namespace neuron::bench {

struct child_result {
    double rate = 0; // per wall-clock second
    double wall_ms = 0;
    double count = 0; // instructions or activations
    double max_rss_mib = 0;
    double extra = 0; // what else the benchmark reports (bytes, ...)
};

// Runs `work` in a child process and returns what it reported, with the
// child's peak RSS; nothing when the child failed.
std::optional<child_result> in_child(const std::function<child_result()>& work);

} // namespace neuron::bench
