#pragma once

#include <cstdint>
#include <string_view>

namespace neuron::sysfs {

// kernfs keeps a directory's entries in an rbtree ordered by a hash of the
// name, then by the name, and readdir walks that tree; so `ls -f` on sysfs
// shows this order, not creation or alphabetical order. The hash is the
// kernel's string hash (init_name_hash / partial_name_hash / end_name_hash on
// a 64-bit kernel), clamped the way kernfs_name_hash reserves 0, 1 and INT_MAX.
std::uint32_t kernfs_name_hash(std::string_view name);

// True when `a` comes before `b` in a kernfs directory.
bool kernfs_before(std::string_view a, std::string_view b);

} // namespace neuron::sysfs
