#pragma once

#include <optional>
#include <string>
#include <vector>

namespace neuron::sysfs {

struct mount_entry {
    std::string mount_point;
    std::string fs_type;
};
// This process's mount table (/proc/self/mountinfo), in its order: where
// several mounts share a mount point, the last one is on top.
std::vector<mount_entry> mount_table();
// The top mount at a path, if any.
std::optional<mount_entry> find_mount(const std::string& path);
// The mount points at `dir` or below it, deepest first (the order to detach them in).
std::vector<std::string> mounts_at_or_below(const std::string& dir);

// Makes `path` ready to mount on and returns its canonical form: creates it
// when missing (reporting so in `created`), clears a stale FUSE mount left by
// a server that died ("Transport endpoint is not connected"), and refuses a
// path that is not a directory or already has something mounted on it.
// Throws mount_error with the reason.
std::string prepare_mount_point(const std::string& path, bool& created);

// A prepared mount point that removes the directory again when destroyed,
// if it created it, however the server ends (unmount it first).
class mount_point {
public:
    explicit mount_point(const std::string& path) : m_path(prepare_mount_point(path, m_created)) {}
    ~mount_point();
    mount_point(const mount_point&) = delete;
    mount_point& operator=(const mount_point&) = delete;
    const std::string& path() const { return m_path; }

private:
    bool m_created = false;
    std::string m_path;
};

} // namespace neuron::sysfs
