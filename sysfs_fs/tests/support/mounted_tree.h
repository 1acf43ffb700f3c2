#pragma once

// Test support: a model with its sysfs tree mounted through FUSE in a
// private temporary directory, for tests that use the tree like a tool does.

#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/sysfs/char_major.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/sysfs_export.h"
#include "neuron/sysfs/tree_builder.h"
#include "neuron/test_support/skip.h"
#include "neuron/test_support/temporary_directory.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace neuron::sysfs::testing {

struct tree_options {
    std::string instance = "trn1.2xlarge";
    std::string driver_version = "2.24";
    std::string root_path = std::string(devices_path);
    bool allow_other = true;
};

class mounted_tree {
public:
    explicit mounted_tree(tree_options options = {})
            : m_sim(config_for(options)),
              m_layout(model::find_instance_type(options.instance), find_release(options.driver_version),
                       dynamic_char_major(read_proc_devices())),
              m_export(m_sim, m_layout, {m_dir.path(), options.root_path, options.allow_other},
                       [this](std::string_view message) {
                           std::lock_guard lock(m_log_mutex);
                           m_log.emplace_back(message);
                       }) {}

    ~mounted_tree() { m_export.stop(); }

    model::simulation& sim() { return m_sim; }
    const model::published_state& state() { return m_sim.published(); }
    const layout& tree_layout() const { return m_layout; }
    const sysfs_tree& tree() const { return m_export.tree(); }
    const std::string& root() const { return m_dir.path(); }
    int ended_fd() const { return m_export.ended_fd(); }
    std::string path(std::string_view relative) const { return fmt::format("{}/{}", m_dir.path(), relative); }

    // open + read everything + close, as `cat` does.
    std::string read(std::string_view relative) const {
        const int fd = ::open(path(relative).c_str(), O_RDONLY);
        if (fd < 0) throw std::runtime_error(fmt::format("open {}: {}", relative, std::strerror(errno)));
        std::string text;
        char buffer[8192];
        for (;;) {
            const auto n = ::read(fd, buffer, sizeof(buffer));
            if (n < 0) {
                const int error = errno;
                ::close(fd);
                throw std::runtime_error(fmt::format("read {}: {}", relative, std::strerror(error)));
            }
            if (n == 0) break;
            text.append(buffer, static_cast<std::size_t>(n));
        }
        ::close(fd);
        return text;
    }

    // open(O_WRONLY) + one write + close; returns what write() returned, or -errno.
    long write(std::string_view relative, std::string_view data) const {
        const int fd = ::open(path(relative).c_str(), O_WRONLY);
        if (fd < 0) return -errno;
        const auto n = ::write(fd, data.data(), data.size());
        const long result = n < 0 ? -errno : n;
        ::close(fd);
        return result;
    }

    std::vector<std::string> driver_log() {
        std::lock_guard lock(m_log_mutex);
        return m_log;
    }

private:
    static model::platform_config config_for(const tree_options& options) {
        model::platform_config config;
        config.instance = options.instance;
        config.mode = model::time_mode::stepped;
        config.start_epoch_ns = 1'700'000'000'000'000'000;
        return config;
    }

    // Mounting needs root and /dev/fuse; without them the test is skipped, never passed.
    struct fuse_check {
        fuse_check() { test_support::require_fuse_mount("this test"); }
    } m_check; // first: skip before creating anything
    test_support::temporary_directory m_dir{"neuron-sysfs-test"};
    model::simulation m_sim;
    layout m_layout;
    std::mutex m_log_mutex;
    std::vector<std::string> m_log;
    sysfs_export m_export;
};

// A file descriptor closed on scope exit.
class file {
public:
    file(const std::string& path, int flags) : m_fd(::open(path.c_str(), flags)) {
        if (m_fd < 0) throw std::runtime_error(fmt::format("open {}: {}", path, std::strerror(errno)));
    }
    ~file() { ::close(m_fd); }
    file(const file&) = delete;
    file& operator=(const file&) = delete;
    int fd() const { return m_fd; }

    std::string pread_all(off_t offset = 0, std::size_t size = 4096) const {
        std::string buffer(size, '\0');
        const auto n = ::pread(m_fd, buffer.data(), size, offset);
        if (n < 0) throw std::runtime_error(fmt::format("pread: {}", std::strerror(errno)));
        buffer.resize(static_cast<std::size_t>(n));
        return buffer;
    }

private:
    int m_fd;
};

} // namespace neuron::sysfs::testing
