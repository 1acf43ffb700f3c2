#include "neuron/tools/top_screen.h"

#include <algorithm>

namespace neuron::tools {
namespace {

void select_tab(top_state& state, const std::vector<const runtime_sample*>& tabs, std::size_t index) {
    state.tab_pid = index == 0 ? 0 : tabs[index - 1]->pid;
}

std::size_t tab_index(const top_state& state, const std::vector<const runtime_sample*>& tabs) {
    for (std::size_t i = 0; i < tabs.size(); ++i) {
        if (tabs[i]->pid == state.tab_pid) return i + 1;
    }
    return 0;
}

void expandable_keys(const std::vector<top_tree_node>& nodes, std::vector<std::string>& keys) {
    for (const auto& n : nodes) {
        if (n.children.empty()) continue;
        keys.push_back(n.key);
        expandable_keys(n.children, keys);
    }
}

// x: everything open, or everything closed when it already was.
void toggle_whole_tree(top_state& state, const std::vector<top_tree_node>& tree) {
    std::vector<std::string> keys;
    expandable_keys(tree, keys);
    const bool all_open =
        std::all_of(keys.begin(), keys.end(), [&](const auto& k) { return state.expanded.contains(k); });
    for (const auto& k : keys) {
        if (all_open) {
            state.expanded.erase(k);
        } else {
            state.expanded.insert(k);
        }
    }
}

void move_in_tree(top_state& state, top_key_code code, const std::vector<top_tree_node>& tree) {
    const auto rows = top_visible_rows(tree, state);
    if (rows.empty()) return;
    const auto at = top_selected_row(rows, state);
    const auto& node = *rows[at].node;
    const bool open = state.expanded.contains(node.key);
    std::size_t to = at;
    switch (code) {
    case top_key_code::up:
        if (at > 0) to = at - 1;
        break;
    case top_key_code::down:
        if (at + 1 < rows.size()) to = at + 1;
        break;
    case top_key_code::enter:
        if (open) {
            state.expanded.erase(node.key);
        } else if (!node.children.empty()) {
            state.expanded.insert(node.key);
        }
        break;
    case top_key_code::right:
        if (!node.children.empty() && !open) {
            state.expanded.insert(node.key);
        } else if (open) {
            to = at + 1;
        }
        break;
    case top_key_code::left:
        if (open) {
            state.expanded.erase(node.key);
        } else if (rows[at].depth > 0) {
            while (rows[to].depth >= rows[at].depth) --to; // the parent
        }
        break;
    case top_key_code::character: break;
    }
    state.selected = rows[to].node->key;
}

} // namespace

bool top_handle_key(top_state& state, const top_key& key, const host_sample& now) {
    const auto tabs = top_tabs(now);
    const auto tree = top_memory_tree(now, top_tab_runtime(now, state));
    if (key.code != top_key_code::character) {
        move_in_tree(state, key.code, tree);
        return true;
    }
    const std::size_t count = tabs.size() + 1;
    switch (key.ch) {
    case 'q':
    case 'Q':
    case '\x03': // Ctrl-C when the terminal does not turn it into SIGINT
        return false;
    case 'a':
    case 'A': select_tab(state, tabs, (tab_index(state, tabs) + count - 1) % count); break;
    case 'd':
    case 'D': select_tab(state, tabs, (tab_index(state, tabs) + 1) % count); break;
    case 'f':
    case 'F': state.flops = !state.flops; break;
    case 'x':
    case 'X': {
        toggle_whole_tree(state, tree);
        const auto rows = top_visible_rows(tree, state);
        if (!rows.empty()) state.selected = rows[top_selected_row(rows, state)].node->key;
        break;
    }
    case '\r':
    case '\n': move_in_tree(state, top_key_code::enter, tree); break;
    default:
        if (key.ch >= '1' && key.ch <= '9' && static_cast<std::size_t>(key.ch - '1') < count) {
            select_tab(state, tabs, static_cast<std::size_t>(key.ch - '1'));
        }
        break;
    }
    return true;
}

} // namespace neuron::tools
