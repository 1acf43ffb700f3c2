#pragma once

#include "neuron/sysfs/attribute.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace neuron::sysfs {

// Node ids double as FUSE inode numbers; 1 is the root (FUSE_ROOT_ID).
using node_id = std::uint32_t;
inline constexpr node_id no_node = 0;
inline constexpr node_id root_node = 1;

enum class node_type : std::uint8_t { directory, attribute, symlink };

struct node {
    node_id id = no_node;
    node_id parent = no_node;
    node_type type = node_type::directory;
    std::uint32_t mode = 0; // permission bits
    std::uint32_t name_hash = 0;
    std::string name;
    std::vector<node_id> children; // kernfs readdir order
    std::uint32_t subdirectories = 0;
    attribute attr;     // attributes
    std::string target; // symlinks
};

// An immutable tree of directories, attribute files and symlinks, built once
// (the driver creates its sysfs nodes at probe and never changes them).
class sysfs_tree {
public:
    sysfs_tree();

    // The directory `name` under `parent`, created on first use (with `mode`):
    // directories come into being with their first entry, so none is left
    // empty by accident.
    node_id directory(node_id parent, std::string_view name, std::uint32_t mode = 0755);
    node_id add_attribute(node_id parent, std::string_view name, std::uint32_t mode, attribute attr);
    node_id add_symlink(node_id parent, std::string_view name, std::string target);
    // Sorts every directory the way kernfs lists it; the tree is read-only afterwards.
    void finish();

    const node& at(node_id id) const { return m_nodes[id - 1]; }
    bool contains(node_id id) const { return id >= root_node && id <= m_nodes.size(); }
    std::size_t size() const { return m_nodes.size(); }

    node_id child(node_id directory, std::string_view name) const; // no_node when absent
    // Resolves a '/'-separated path below `from` without following symlinks.
    node_id resolve(std::string_view path, node_id from = root_node) const;
    std::string path_of(node_id id) const; // relative to the root, no leading '/'

    // The node showing a counter field, or no_node when this layout hides it.
    node_id counter_node(const model::counter_ref& ref, model::counter_field field) const;

private:
    node_id add(node_id parent, std::string_view name, node_type type, std::uint32_t mode);
    static std::uint64_t counter_key(const model::counter_ref& ref, model::counter_field field);

    std::vector<node> m_nodes;
    std::unordered_map<std::uint64_t, node_id> m_counter_nodes;
    // While the tree grows: each node by its parent and name, so that adding
    // a name costs log n, not a look at every child (a directory of n
    // entries would cost n^2 / 2 comparisons). Ordered, not hashed: names
    // chosen to collide cannot make it slow.
    struct place_less {
        using is_transparent = void;
        template <typename A, typename B>
        bool operator()(const A& a, const B& b) const {
            if (a.first != b.first) return a.first < b.first;
            return std::string_view(a.second) < std::string_view(b.second);
        }
    };
    std::map<std::pair<node_id, std::string>, node_id, place_less> m_growing;
    bool m_finished = false;
};

} // namespace neuron::sysfs
