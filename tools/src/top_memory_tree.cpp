#include "neuron/tools/top_screen.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace neuron::tools {
namespace {

struct category_leaf {
    std::string_view key;
    std::string_view label;
    std::uint64_t top_memory_categories::*bytes;
};

constexpr std::array<category_leaf, 5> leaves{{
    {"tensors", "Tensors", &top_memory_categories::tensors},
    {"constants", "Constants", &top_memory_categories::constants},
    {"model_code", "Model Code", &top_memory_categories::model_code},
    {"runtime_memory", "Runtime Memory", &top_memory_categories::runtime},
    {"scratchpad", "Model Scratchpad", &top_memory_categories::scratchpad},
}};

std::uint64_t saturating_sub(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

void add_leaves(top_tree_node& parent, const top_memory_categories& device, const top_memory_categories& host) {
    for (const auto& leaf : leaves) {
        top_tree_node n;
        n.key = fmt::format("{}/{}", parent.key, leaf.key);
        n.label = std::string(leaf.label);
        n.device_bytes = device.*leaf.bytes;
        n.host_bytes = host.*leaf.bytes;
        parent.children.push_back(std::move(n));
    }
}

void sum_children(top_tree_node& n) {
    n.device_bytes = n.host_bytes = 0;
    for (const auto& c : n.children) {
        n.device_bytes += c.device_bytes;
        n.host_bytes += c.host_bytes;
    }
}

struct placed_model {
    std::uint32_t pid;
    const model_sample* model;
};

top_tree_node core_node(const device_sample& d, std::uint32_t core, std::uint32_t lnc,
                        const std::vector<placed_model>& models) {
    top_tree_node nc;
    nc.key = fmt::format("nd{}/nc{}", d.index, core);
    nc.label = fmt::format("NC{:2}", core);
    memory_breakdown memory;
    for (const auto& c : d.cores) {
        if (c.index / lnc != core) continue;
        for (const auto& [category, bytes] : c.device_mem) memory[category] += bytes;
    }
    // What the models were charged is shown under them; the core keeps the rest.
    auto rest = top_categories(memory);
    for (const auto& [pid, m] : models) {
        top_tree_node n;
        n.key = fmt::format("{}/m{}:{}", nc.key, pid, m->id);
        n.label = common::printable(m->name);
        n.model_id = std::to_string(m->id);
        const auto device = top_categories(m->device_memory);
        add_leaves(n, device, top_categories(m->host_memory));
        sum_children(n);
        for (const auto& leaf : leaves) rest.*leaf.bytes = saturating_sub(rest.*leaf.bytes, device.*leaf.bytes);
        nc.children.push_back(std::move(n));
    }
    add_leaves(nc, rest, {});
    sum_children(nc);
    return nc;
}

} // namespace

std::vector<top_tree_node> top_memory_tree(const host_sample& now, const runtime_sample* tab) {
    const std::uint32_t lnc = std::max<std::uint32_t>(now.lnc, 1);
    std::vector<const runtime_sample*> shown;
    if (tab != nullptr) {
        shown.push_back(tab);
    } else {
        for (const auto* r : top_tabs(now)) shown.push_back(r);
    }
    std::vector<top_tree_node> tree;
    for (const auto& d : now.devices) {
        const auto per_device = logical_cores_of(now, d);
        top_tree_node nd;
        nd.key = fmt::format("nd{}", d.index);
        nd.label = fmt::format("ND{:2}", d.index);
        for (std::uint32_t core = 0; core < per_device; ++core) {
            if (tab != nullptr) {
                const bool held = std::any_of(tab->activity.begin(), tab->activity.end(), [&](const auto& entry) {
                    return entry.first.first == d.index && entry.first.second / lnc == core;
                });
                if (!held) continue;
            }
            std::vector<placed_model> models;
            for (const auto* r : shown) {
                for (const auto& m : r->models) {
                    if (m.logical_core == global_logical_core(now, {d.index, core * lnc}, lnc)) {
                        models.push_back({r->pid, &m});
                    }
                }
            }
            std::stable_sort(models.begin(), models.end(), [](const auto& a, const auto& b) {
                return a.pid != b.pid ? a.pid < b.pid : a.model->id < b.model->id;
            });
            nd.children.push_back(core_node(d, core, lnc, models));
        }
        if (tab != nullptr && nd.children.empty()) continue;
        sum_children(nd);
        tree.push_back(std::move(nd));
    }
    return tree;
}

namespace {

void visit(const std::vector<top_tree_node>& nodes, unsigned depth, const top_state& state,
           std::vector<top_tree_row>& rows) {
    for (const auto& n : nodes) {
        rows.push_back({&n, depth});
        if (state.expanded.contains(n.key)) visit(n.children, depth + 1, state, rows);
    }
}

} // namespace

std::vector<top_tree_row> top_visible_rows(const std::vector<top_tree_node>& tree, const top_state& state) {
    std::vector<top_tree_row> rows;
    visit(tree, 0, state, rows);
    return rows;
}

std::size_t top_selected_row(const std::vector<top_tree_row>& rows, const top_state& state) {
    for (std::string key = state.selected; !key.empty();) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (rows[i].node->key == key) return i;
        }
        const auto slash = key.rfind('/');
        key = slash == std::string::npos ? std::string() : key.substr(0, slash);
    }
    return 0;
}

} // namespace neuron::tools
