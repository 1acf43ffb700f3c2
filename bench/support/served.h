#pragma once

// `neuron-emu serve` as the benchmarks run it: a process of its own, as a
// user's would be, in a temporary directory that goes away with it.

#include "neuron/common/child_process.h"

#include <optional>
#include <string>

namespace neuron::bench {

// A private directory under /tmp (or under `parent`), removed when destroyed
// (after detaching anything still mounted below it).
class scratch_dir {
public:
    explicit scratch_dir(const std::string& parent = "/tmp");
    ~scratch_dir();
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    const std::string& path() const { return m_path; }
    std::string operator/(const std::string& name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

struct serve_options {
    std::string instance;
    std::string time = "stepped";
    bool control = true;
    bool materialize = false; // plain files instead of a FUSE mount
    std::string tree_parent;  // where the tree goes (default: the scratch directory)

    explicit serve_options(std::string type) : instance(std::move(type)) {}
    serve_options& realtime() {
        time = "realtime";
        return *this;
    }
    serve_options& without_control() {
        control = false;
        return *this;
    }
    serve_options& materialized() {
        materialize = true;
        return *this;
    }
    serve_options& trees_in(std::string parent) {
        tree_parent = std::move(parent);
        return *this;
    }
};

class served {
public:
    served(const std::string& emulator, serve_options options);
    ~served();

    const std::string& tree() const { return m_tree; }
    const std::string& control_path() const { return m_control; }
    pid_t pid() const { return m_process->pid(); }
    double rss_mib() const; // resident memory now

    // SIGTERM; the exit status (or -1 if it had to be killed).
    int stop();

private:
    scratch_dir m_dir;
    std::optional<scratch_dir> m_tree_dir;
    std::string m_tree;
    std::string m_control;
    std::optional<common::child_process> m_process;
};

// Resident memory of a process, in MiB.
double rss_mib(pid_t pid);
// The mounts at or below a path (from /proc/self/mountinfo).
int mounts_below(const std::string& path);
// Entries of /proc/self/fd and /proc/self/task: what a leak would grow.
int open_fds();
int threads();
// Child processes of this one, running or not yet reaped.
int children();

} // namespace neuron::bench
