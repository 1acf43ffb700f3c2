#pragma once

// The floor FUSE itself imposes: a minimal libfuse low-level filesystem
// serving one sysfs-like file, `counter` (0644, st_size 4096, direct_io,
// "%llu\n", long entry and attribute timeouts as our tree has), from a
// single-threaded session loop, with kernfs-style poll (POLLPRI|POLLERR
// once the counter changed since the file's last read) and notifications
// sent from a thread of their own. Benchmarks compare the emulator with it.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

struct fuse_session;
struct fuse_pollhandle;

namespace neuron::bench {

class floor_fs {
public:
    explicit floor_fs(std::string mountpoint); // mounts; throws std::runtime_error
    ~floor_fs();
    floor_fs(const floor_fs&) = delete;
    floor_fs& operator=(const floor_fs&) = delete;

    std::string file() const { return m_mountpoint + "/counter"; }

    // The counter changes: the notifier thread bumps it and wakes pollers.
    void change();

    // Handlers' view (libfuse calls them with the session's userdata).
    struct state;

private:
    std::string m_mountpoint;
    fuse_session* m_session = nullptr;
    std::thread m_loop;
    std::thread m_notifier;
    int m_change_fd = -1; // eventfd: change() -> notifier
    std::unique_ptr<state> m_state;
};

} // namespace neuron::bench
