#pragma once

#include "neuron/sysfs/attribute_reader.h"
#include "neuron/sysfs/confined_directory.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/served_tree.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace neuron::model {
class published_state;
}

namespace neuron::sysfs {

// The device tree written as plain files, for machines without /dev/fuse:
// DIR/neuron0/... with the driver's modes, rewritten (atomically, by rename)
// whenever a value changes, checked every refresh_period. Nothing below DIR
// is followed (see confined_directory). Plain files cannot
// do what sysfs files do: poll() never reports a change, writes change only
// the file (until the next refresh), and root is not refused writes to
// read-only attributes.
class materializer {
public:
    static constexpr std::chrono::milliseconds refresh_period{100};

    // Writes the whole tree, then keeps it up to date from a thread of its own.
    // Throws mount_error when the tree cannot be written.
    materializer(const model::published_state& state, const layout& layout, const std::string& directory);
    // Writes `served` (a recorded host's tree, say) instead of the layout's own.
    materializer(const model::published_state& state, const layout& layout, served_tree served,
                 const std::string& directory);
    ~materializer();
    materializer(const materializer&) = delete;
    materializer& operator=(const materializer&) = delete;

    // Rewrites every file whose value changed; returns how many. A file that
    // cannot be written is skipped and told on stderr (once until it can be
    // written again). Any thread.
    std::size_t refresh();
    void stop();
    const std::string& directory() const { return m_directory.path(); }

private:
    void create_nodes(node_id id, const std::string& relative);
    bool rewrite_if_changed(std::size_t file);
    void run();

    served_tree m_served;
    generic_device_state m_generic;
    attribute_reader m_reader;
    confined_directory m_directory;
    std::vector<std::pair<node_id, std::string>> m_files; // attribute, its path below the directory
    std::vector<std::string> m_written;                   // last content of each file
    std::vector<bool> m_failing;                          // its last write failed (and was told)

    std::mutex m_refresh_mutex;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace neuron::sysfs
