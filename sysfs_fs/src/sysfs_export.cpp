#include "neuron/sysfs/sysfs_export.h"

#include "neuron/model/runtime/simulation.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

namespace neuron::sysfs {

sysfs_export::sysfs_export(model::simulation& sim, const layout& layout, export_options options, driver_log log)
        : sysfs_export(sim, layout, served_tree{build_tree(layout), {}}, std::move(options), std::move(log)) {}

sysfs_export::sysfs_export(model::simulation& sim, const layout& layout, served_tree served, export_options options,
                           driver_log log)
        : m_options(std::move(options)), m_served(std::move(served)), m_generic(layout.instance().device_count),
          m_reader(layout, sim.published(), m_generic, &m_served.recorded), m_port(sim),
          m_writer(sim.published(), m_generic, m_port, std::move(log)), m_hub(m_served.tree.size(), m_waker) {
    const auto& tree = m_served.tree;
    const auto root = tree.resolve(m_options.root_path);
    if (root == no_node || tree.at(root).type != node_type::directory) {
        throw mount_error(fmt::format("the sysfs tree has no directory '{}'", m_options.root_path));
    }
    m_server = std::make_unique<fuse_server>(tree, m_reader, m_writer, m_hub,
                                             fuse_server_options{root, m_options.allow_other});
    m_feed = std::make_unique<model_change_feed>(sim, tree, m_hub);
    try {
        m_server->mount(m_options.mountpoint);
    } catch (...) {
        m_feed.reset();
        m_hub.stop();
        throw;
    }
}

sysfs_export::~sysfs_export() { stop(); }

void sysfs_export::stop() {
    m_feed.reset(); // no more model notifications into the hub
    m_hub.stop();   // no more wake-ups: they must not outlive the session
    m_server->stop();
}

} // namespace neuron::sysfs
