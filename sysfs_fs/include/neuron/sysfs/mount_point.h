#pragma once

#include <optional>
#include <string>

namespace neuron::sysfs {

// The mount table entry at a path, from /proc/self/mountinfo.
struct mount_entry {
    std::string mount_point;
    std::string fs_type;
};
std::optional<mount_entry> find_mount(const std::string& path);

// Makes `path` ready to mount on and returns its canonical form: creates it
// when missing (reporting so in `created`), clears a stale FUSE mount left by
// a server that died ("Transport endpoint is not connected"), and refuses a
// path that is not a directory or already has something mounted on it.
// Throws mount_error with the reason.
std::string prepare_mount_point(const std::string& path, bool& created);

} // namespace neuron::sysfs
