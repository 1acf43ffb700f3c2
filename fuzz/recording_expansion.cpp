#include "recording_expansion.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/recording/recording_file.h"

#include <algorithm>
#include <functional>
#include <string>

namespace neuron::fuzz {
namespace {

using recording::entry_type;
using recording::tree_entry;
using recording::tree_recording;

constexpr std::string_view header = "#expand ";
constexpr std::size_t max_path_bytes = 4096; // as a reader takes them (docs/recording-format.md)
constexpr std::size_t max_name_bytes = 255;
constexpr std::size_t max_sampled_value_bytes = 4 * recording::max_value_bytes;
// A replay holds 4 000 000 changes (replay_plan.cpp): 400 counters moving
// in each of 10 000 samples.
constexpr std::size_t moving_counters = 400;
constexpr std::string_view moving_prefix = "neuron0/stats/c1";
constexpr std::string_view late_counter = "neuron0/stats/c9999"; // moves once, in the last sample
constexpr std::string_view sampled_counter = "neuron0/stats/fuzz_sampled";

// A digit's dimension: 0 as it is; else the limit less one, the limit, the limit and one.
std::ptrdiff_t past(int choice) { return choice - 2; }

std::size_t near(std::size_t limit, int choice) {
    return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(limit) + past(choice));
}

tree_entry file(std::string path, std::string value, bool counter = false) {
    tree_entry e;
    e.path = std::move(path);
    e.type = entry_type::file;
    e.mode = 0444;
    e.value = std::move(value);
    e.counter = counter;
    return e;
}

// Sorted, each path once (the first kept), as a reader wants them.
void settle(tree_recording& r) {
    std::stable_sort(r.entries.begin(), r.entries.end(),
                     [](const auto& a, const auto& b) { return recording::path_less(a.path, b.path); });
    r.entries.erase(
        std::unique(r.entries.begin(), r.entries.end(), [](const auto& a, const auto& b) { return a.path == b.path; }),
        r.entries.end());
}

std::vector<const tree_entry*> counters_of(const tree_recording& r) {
    std::vector<const tree_entry*> out;
    for (const auto& e : r.entries) {
        if (e.counter) out.push_back(&e);
    }
    return out;
}

// `count` samples a nanosecond apart: the n-th value of a counter `moving`
// says moves is "n\n", of any other its recorded value (it never changes).
void sample(tree_recording& r, std::size_t count, const std::function<bool(const tree_entry&)>& moving) {
    const auto counters = counters_of(r);
    r.samples.clear();
    for (std::size_t n = 0; n < count; ++n) {
        recording::sample s;
        s.at_ns = n;
        const auto moved = std::to_string(n) + "\n";
        for (const auto* e : counters) s.values.push_back(moving(*e) ? std::string_view(moved) : e->value);
        r.samples.push_back(std::move(s));
    }
}

// The samples with `value(n, path, was)` in place of each value.
void rewrite(tree_recording& r,
             const std::function<std::string(std::size_t, std::string_view, std::string_view)>& value) {
    const auto counters = counters_of(r);
    for (std::size_t n = 0; n < r.samples.size(); ++n) {
        recording::sample_values v;
        for (std::size_t i = 0; i < counters.size(); ++i)
            v.push_back(value(n, counters[i]->path, r.samples[n].values[i]));
        r.samples[n].values = std::move(v);
    }
}

// A path of exactly `bytes` bytes below neuron0, in names of at most 255.
std::string path_of_length(std::size_t bytes) {
    std::string path = "neuron0";
    while (path.size() < bytes) {
        auto room = bytes - path.size() - 1; // after the '/'
        // Never leave one byte, which would be a '/' and no name.
        auto name = std::min(room, max_name_bytes);
        if (room > name && room - name == 1) --name;
        path += "/" + std::string(name, 'p');
    }
    return path;
}

} // namespace

std::optional<expansion> expand(std::string_view text, bool slow_dimensions) {
    if (!text.starts_with(header) || text.size() < header.size() + 5) return std::nullopt;
    const auto digit = [&](std::size_t i) { return static_cast<unsigned char>(text[header.size() + i]) % 4; };
    const int entries = slow_dimensions ? digit(0) : 0;
    const int samples = digit(1);
    const int values = digit(2);
    const int paths = digit(3);
    const int changes = slow_dimensions ? digit(4) : 0;

    expansion x;
    auto& r = x.recording;
    try {
        r = recording::read_recording(text, "fuzz.yaml");
    } catch (const common::yaml_error&) {
        r.root = "/r";
        r.device_count = 1;
    }
    // The samples are made again over the counters the expansion adds.
    r.samples.clear();
    r.interval_ns = 0; // a recording without samples has none
    for (auto& e : r.entries) e.counter = false;
    r.entries.push_back({"neuron0", entry_type::directory, 0755, "", "", 0, false});

    if (values != 0) {
        r.entries.push_back(file("neuron0/fuzz_value", std::string(near(recording::max_value_bytes, values), 'v')));
        r.entries.push_back(file(std::string(sampled_counter), "0\n", true));
    }
    if (paths != 0) {
        r.entries.push_back(file(path_of_length(near(max_path_bytes, paths)), "long\n"));
        r.entries.push_back(file("neuron0/" + std::string(near(max_name_bytes, paths), 'n'), "named\n"));
    }
    if (changes != 0) {
        for (std::size_t i = 0; i < moving_counters; ++i) {
            r.entries.push_back(file(std::string(moving_prefix) + std::to_string(1000 + i), "x\n", true));
        }
        if (past(changes) > 0) r.entries.push_back(file(std::string(late_counter), "x\n", true));
    } else if (samples != 0 && counters_of(r).empty()) {
        r.entries.push_back(file("neuron0/stats/fuzz_counter", "0\n", true));
    }
    if (entries != 0) {
        settle(r);
        const auto target = near(recording::max_entries, entries);
        for (std::size_t i = 0; r.entries.size() < target; ++i) {
            r.entries.push_back(file("neuron0/fuzz_entries/e" + std::to_string(10'000'000 + i), ""));
        }
    }
    settle(r);

    if (changes != 0) {
        // Every moving counter changes in every sample: 400 x 10 000.
        sample(r, recording::max_samples, [](const tree_entry& e) { return e.path.starts_with(moving_prefix); });
        const auto last = r.samples.size() - 1;
        rewrite(r, [&](std::size_t n, std::string_view path, std::string_view was) {
            if (past(changes) < 0 && n == last && path == std::string(moving_prefix) + "000") {
                return std::to_string(n - 1) + "\n"; // one change less
            }
            if (path == late_counter) return std::string(n == last ? "y\n" : "x\n"); // one change more
            return std::string(was);
        });
        x.past_the_replay_limit = past(changes) > 0;
    } else if (samples != 0) {
        sample(r, near(recording::max_samples, samples), [](const tree_entry&) { return true; });
    } else if (!counters_of(r).empty()) {
        sample(r, 2, [](const tree_entry&) { return true; });
    }
    // (Not with C: it would be two more changes.)
    if (values != 0 && changes == 0 && !r.samples.empty()) {
        rewrite(r, [&](std::size_t n, std::string_view path, std::string_view was) {
            return n == 0 && path == sampled_counter ? std::string(near(max_sampled_value_bytes, values), 's')
                                                     : std::string(was);
        });
    }
    x.past_a_read_limit = (values != 0 && past(values) > 0) || (paths != 0 && past(paths) > 0) ||
                          (changes == 0 && samples != 0 && past(samples) > 0) || (entries != 0 && past(entries) > 0);
    return x;
}

} // namespace neuron::fuzz
