#pragma once

// neuron-top's screen (reference nrt-api.md §4.3) as plain text: a pure
// function of two host samples (a period) and what the viewer chose, so the
// interactive loop (top_terminal.h), `neuron-emu top --once` and the tests
// share it.

#include "neuron/tools/host_sample.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::tools {

// The version in the title: the one the vendor's screenshots show.
inline constexpr std::string_view neuron_top_version = "2.0.9646.0";

// What the viewer chose; it outlives samples, so it names things, not indices.
struct top_state {
    std::uint32_t tab_pid = 0;      // the runtime whose tab is shown; 0: the "all" tab
    bool flops = false;             // teraflops instead of utilization percentages
    std::set<std::string> expanded; // memory tree nodes shown open, by top_tree_node::key
    std::string selected;           // the selected node's key; empty (or gone): the first row
};

// ---- units (top_units.cpp)

// 0.0B, 256.0KB, 17.5GB: one decimal, binary multiples.
std::string top_bytes(std::uint64_t bytes);

// Display columns of UTF-8 text (one per code point) and the text cut to
// `width` columns / padded with spaces to exactly `width`.
std::size_t top_columns(std::string_view text);
std::string top_fit(std::string_view text, std::size_t width);
std::string top_pad(std::string_view text, std::size_t width);

// ---- what the sections show (top_usage.cpp)

// The tabs after "all": the runtimes by pid.
std::vector<const runtime_sample*> top_tabs(const host_sample& now);
// The runtime of the shown tab; nullptr: the "all" tab (also when its runtime is gone).
const runtime_sample* top_tab_runtime(const host_sample& now, const top_state& state);

// "v2" (Trainium1, Inferentia2), "v3" (Trainium2, LNC=1), "v3d" (Trainium2,
// LNC=2); empty where the docs name none.
std::string top_core_version(const host_sample& now);

struct top_core_usage {
    double utilization = 0; // percent of the period, over the logical core's physical cores
    double tflops = 0;      // teraflops per second over the period
};

// By device, then by logical core within the device, for the runtimes of
// the tab (`tab` nullptr: all). A runtime missing from `before` counts from 0.
std::vector<std::vector<top_core_usage>> top_core_usages(const host_sample& before, const host_sample& now,
                                                         const runtime_sample* tab);

struct top_vcpu_usage {
    double user = 0, system = 0; // percent of all vCPUs' time over the period
};
top_vcpu_usage top_system_vcpu(const host_sample& before, const host_sample& now);
top_vcpu_usage top_runtime_vcpu(const host_sample& before, const host_sample& now, const runtime_sample* tab);

// The tree's categories; `runtime` is what the other four leave of the total.
struct top_memory_categories {
    std::uint64_t tensors = 0, constants = 0, model_code = 0, runtime = 0, scratchpad = 0;
    std::uint64_t total() const { return tensors + constants + model_code + runtime + scratchpad; }
};
top_memory_categories top_categories(const memory_breakdown& memory);

struct top_memory_summary {
    std::uint64_t host_total = 0, host_tensors = 0, host_constants = 0, host_dma_buffers = 0, host_app = 0;
    top_memory_categories device;
};
// The tab's memory: on a runtime's tab, the cores it holds and the host
// memory of the devices they are on.
top_memory_summary top_memory(const host_sample& now, const runtime_sample* tab);

// ---- the memory details tree (top_memory_tree.cpp)

struct top_tree_node {
    std::string key;                                // "nd0", "nd0/nc1", "nd0/nc1/m<pid>:<id>", "nd0/nc1/tensors", ...
    std::string label;                              // "ND 0", "NC 1", the model's name, "Tensors", ...
    std::string model_id;                           // models only
    std::uint64_t device_bytes = 0, host_bytes = 0; // a parent's are its children's sum
    std::vector<top_tree_node> children;
};

// Devices, their logical cores, the models on each and the categories.
std::vector<top_tree_node> top_memory_tree(const host_sample& now, const runtime_sample* tab);

struct top_tree_row {
    const top_tree_node* node = nullptr;
    unsigned depth = 0;
};
std::vector<top_tree_row> top_visible_rows(const std::vector<top_tree_node>& tree, const top_state& state);
// The row shown selected: the selected node, else its nearest visible ancestor, else 0.
std::size_t top_selected_row(const std::vector<top_tree_row>& rows, const top_state& state);

// ---- keys (top_keys.cpp)

enum class top_key_code { character, up, down, left, right, enter };

struct top_key {
    top_key_code code = top_key_code::character;
    char ch = 0; // for character
};

// Applies a key to the state; false when it quits (q).
bool top_handle_key(top_state& state, const top_key& key, const host_sample& now);

// ---- the frame (top_frame.cpp)

// The screen as lines of at most `width` columns, each ending in '\n', no
// escape codes. `height` 0: as many lines as the content takes; else exactly
// `height` lines with the tab bar and the key help at the bottom.
std::string top_frame(const host_sample& before, const host_sample& now, const top_state& state, unsigned width,
                      unsigned height);

} // namespace neuron::tools
