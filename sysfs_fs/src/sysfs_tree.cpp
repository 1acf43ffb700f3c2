#include "neuron/sysfs/sysfs_tree.h"

#include "neuron/model/spec/errors.h"
#include "neuron/sysfs/kernfs_order.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::sysfs {

sysfs_tree::sysfs_tree() {
    node root;
    root.id = root_node;
    root.mode = 0755;
    m_nodes.push_back(std::move(root));
}

node_id sysfs_tree::add(node_id parent, std::string_view name, node_type type, std::uint32_t mode) {
    if (m_finished) throw model::model_error("the sysfs tree is finished; it cannot grow");
    if (!contains(parent) || at(parent).type != node_type::directory) {
        throw model::model_error(fmt::format("cannot add '{}': parent {} is not a directory", name, parent));
    }
    if (child(parent, name) != no_node) {
        throw model::model_error(fmt::format("'{}/{}' exists already", path_of(parent), name));
    }
    node n;
    n.id = static_cast<node_id>(m_nodes.size() + 1);
    n.parent = parent;
    n.type = type;
    n.mode = mode;
    n.name = std::string(name);
    n.name_hash = kernfs_name_hash(name);
    m_growing.emplace(std::pair{parent, n.name}, n.id);
    m_nodes.push_back(std::move(n));
    auto& dir = m_nodes[parent - 1];
    dir.children.push_back(m_nodes.back().id);
    if (type == node_type::directory) ++dir.subdirectories;
    return m_nodes.back().id;
}

node_id sysfs_tree::directory(node_id parent, std::string_view name, std::uint32_t mode) {
    if (const auto existing = child(parent, name); existing != no_node) return existing;
    return add(parent, name, node_type::directory, mode);
}

node_id sysfs_tree::add_attribute(node_id parent, std::string_view name, std::uint32_t mode, attribute attr) {
    const auto id = add(parent, name, node_type::attribute, mode);
    m_nodes[id - 1].attr = attr;
    if (attr.kind == attribute_kind::counter_field) {
        m_counter_nodes[counter_key(attr.counter_ref(), attr.field)] = id;
    }
    return id;
}

node_id sysfs_tree::add_symlink(node_id parent, std::string_view name, std::string target) {
    const auto id = add(parent, name, node_type::symlink, 0777);
    m_nodes[id - 1].target = std::move(target);
    return id;
}

void sysfs_tree::finish() {
    for (auto& n : m_nodes) {
        std::sort(n.children.begin(), n.children.end(), [this](node_id a, node_id b) {
            const auto& na = at(a);
            const auto& nb = at(b);
            if (na.name_hash != nb.name_hash) return na.name_hash < nb.name_hash;
            return na.name < nb.name;
        });
    }
    m_growing = {};
    m_finished = true;
}

node_id sysfs_tree::child(node_id directory, std::string_view name) const {
    if (!contains(directory)) return no_node;
    const auto& dir = at(directory);
    if (!m_finished) {
        const auto it = m_growing.find(std::pair{directory, name});
        return it == m_growing.end() ? no_node : it->second;
    }
    const auto hash = kernfs_name_hash(name);
    const auto it = std::lower_bound(dir.children.begin(), dir.children.end(), std::pair{hash, name},
                                     [this](node_id id, const std::pair<std::uint32_t, std::string_view>& key) {
                                         const auto& n = at(id);
                                         if (n.name_hash != key.first) return n.name_hash < key.first;
                                         return std::string_view(n.name) < key.second;
                                     });
    if (it != dir.children.end() && at(*it).name == name) return *it;
    return no_node;
}

node_id sysfs_tree::resolve(std::string_view path, node_id from) const {
    node_id current = from;
    while (!path.empty() && current != no_node) {
        const auto slash = path.find('/');
        const auto part = path.substr(0, slash);
        path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
        if (part.empty() || part == ".") continue;
        current = part == ".." ? (current == root_node ? root_node : at(current).parent) : child(current, part);
    }
    return current;
}

std::string sysfs_tree::path_of(node_id id) const {
    std::string path;
    for (node_id n = id; n != root_node && n != no_node; n = at(n).parent) {
        path = path.empty() ? at(n).name : at(n).name + "/" + path;
    }
    return path;
}

std::uint64_t sysfs_tree::counter_key(const model::counter_ref& ref, model::counter_field field) {
    return (std::uint64_t{ref.device} << 32) |
           (std::uint64_t(static_cast<std::uint32_t>(ref.core + 1) & 0xffff) << 16) |
           (std::uint64_t(static_cast<std::uint8_t>(ref.kind)) << 8) | static_cast<std::uint8_t>(field);
}

node_id sysfs_tree::counter_node(const model::counter_ref& ref, model::counter_field field) const {
    const auto it = m_counter_nodes.find(counter_key(ref, field));
    return it == m_counter_nodes.end() ? no_node : it->second;
}

} // namespace neuron::sysfs
