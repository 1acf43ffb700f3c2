#pragma once

#include "neuron/sysfs/attribute_reader.h"
#include "neuron/sysfs/attribute_writer.h"
#include "neuron/sysfs/change_hub.h"
#include "neuron/sysfs/fuse_server.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/model_change_feed.h"
#include "neuron/sysfs/model_port.h"
#include "neuron/sysfs/served_tree.h"
#include "neuron/sysfs/sysfs_tree.h"

#include <memory>
#include <string>
#include <string_view>

namespace neuron::model {
class simulation;
}

namespace neuron::sysfs {

struct export_options {
    std::string mountpoint; // an existing directory with nothing mounted on it
    std::string root_path;  // the part of the tree the mount shows: "" for the whole
                            // tree (devices/ and class/ as below /sys), or e.g. devices_path
    bool allow_other = false;
};

// A running simulation's sysfs tree, mounted through FUSE. Construction
// mounts; stop() or destruction unmounts. The simulation must outlive it.
class sysfs_export {
public:
    sysfs_export(model::simulation& sim, const layout& layout, export_options options, driver_log log);
    // Serves `served` (a recorded host's tree, say) instead of the layout's own.
    sysfs_export(model::simulation& sim, const layout& layout, served_tree served, export_options options,
                 driver_log log);
    ~sysfs_export();
    sysfs_export(const sysfs_export&) = delete;
    sysfs_export& operator=(const sysfs_export&) = delete;

    const sysfs_tree& tree() const { return m_served.tree; }
    const std::string& mountpoint() const { return m_options.mountpoint; }
    // Readable when the mount went away without stop().
    int ended_fd() const { return m_server->ended_fd(); }

    // Stops notifications, then unmounts. Idempotent.
    void stop();

private:
    export_options m_options;
    served_tree m_served;
    generic_device_state m_generic;
    attribute_reader m_reader;
    simulation_port m_port;
    attribute_writer m_writer;
    fuse_poll_waker m_waker;
    change_hub m_hub;
    std::unique_ptr<fuse_server> m_server;
    std::unique_ptr<model_change_feed> m_feed;
};

} // namespace neuron::sysfs
