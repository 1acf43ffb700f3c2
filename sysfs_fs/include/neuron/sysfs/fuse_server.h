#pragma once

#include "neuron/sysfs/attribute_reader.h"
#include "neuron/sysfs/attribute_writer.h"
#include "neuron/sysfs/change_hub.h"
#include "neuron/sysfs/sysfs_tree.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unordered_map>

struct fuse_session;

namespace neuron::sysfs {

// Whether /dev/fuse can be opened for reading and writing; if not, `why`
// says what failed.
bool fuse_device_usable(std::string& why);

// Wakes FUSE pollers: fuse_lowlevel_notify_poll on a handle the kernel gave us.
class fuse_poll_waker : public poll_waker {
public:
    void wake(void* handle) override;
    void discard(void* handle) override;
};

struct fuse_server_options {
    node_id root = root_node; // the tree node the mount's root shows
    bool allow_other = false; // let users other than the mounting one in
};

// Serves a sysfs tree through libfuse's low-level API with kernfs's file
// semantics (driver-sysfs.md "Kernel behaviour"; prior-art.md §D): modes
// checked by the kernel (default_permissions) plus kernfs's own EACCES for
// writes to files without a store, st_size 4096, a snapshot per open file
// taken at offset 0, direct I/O, and poll() that reports POLLPRI|POLLERR once
// the file changed since it was last read. One thread serves requests.
class fuse_server {
public:
    fuse_server(const sysfs_tree& tree, const attribute_reader& reader, attribute_writer& writer, change_hub& hub,
                fuse_server_options options);
    ~fuse_server();
    fuse_server(const fuse_server&) = delete;
    fuse_server& operator=(const fuse_server&) = delete;

    // Mounts at `mountpoint` (an existing, unmounted directory) and starts
    // serving. Throws mount_error.
    void mount(const std::string& mountpoint);
    // Stops serving and unmounts (lazily, so open files cannot block it). Idempotent.
    void stop();

    bool mounted() const { return m_session != nullptr; }
    // Readable once serving ended without stop(): someone unmounted the tree.
    int ended_fd() const { return m_ended_fd; }

    // libfuse's C callbacks reach the server through these.
    struct handlers;

private:
    struct open_file;
    struct node_override;

    void serve();
    void forget_open_files();
    node_id node_of(unsigned long ino) const;
    unsigned long ino_of(node_id id) const;
    void fill_stat(node_id id, struct stat& st) const;

    const sysfs_tree& m_tree;
    const attribute_reader& m_reader;
    attribute_writer& m_writer;
    change_hub& m_hub;
    fuse_server_options m_options;
    std::chrono::system_clock::time_point m_created;

    // Files the kernel has not released yet: RELEASE comes asynchronously
    // after close(), so some may still be open when serving stops.
    std::unordered_map<open_file*, std::unique_ptr<open_file>> m_open_files;

    mutable std::mutex m_override_mutex;
    std::unordered_map<node_id, std::unique_ptr<node_override>> m_overrides; // chmod/chown/utimes

    fuse_session* m_session = nullptr;
    std::string m_mountpoint;
    int m_ended_fd = -1;
    std::future<void> m_served; // ready once serve() returned
    std::atomic<bool> m_stopping{false};
    std::thread m_thread;
    std::mutex m_stop_mutex;
};

} // namespace neuron::sysfs
