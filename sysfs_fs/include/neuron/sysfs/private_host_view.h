#pragma once

#include "neuron/sysfs/layout.h"

#include <string>

namespace neuron::sysfs {

// Moves the calling process into a mount namespace of its own whose mounts
// never propagate back to the host (unshare(CLONE_NEWNS), then / made
// rprivate). Mount namespaces belong to threads: call it while the process
// has a single thread, so that every thread started later shares it.
void enter_private_mount_namespace();

// A tmpfs on a fresh directory under /tmp, for what `run` mounts and writes.
// Inside a private namespace only the empty directory is visible to the
// host; the destructor unmounts the tmpfs and removes it.
class scratch_directory {
public:
    scratch_directory();
    ~scratch_directory();
    scratch_directory(const scratch_directory&) = delete;
    scratch_directory& operator=(const scratch_directory&) = delete;

    const std::string& path() const { return m_path; }
    std::string make_directory(const std::string& name) const; // returns its path

private:
    std::string m_path;
};

// Makes the tree mounted at `tree_mount` (the whole tree: devices/ and
// class/ as below /sys) appear where tools look for the driver, inside the
// current (private) mount namespace:
//   /sys/devices/virtual/neuron_device and /sys/class/neuron_device,
//   the instance's DMI identity at /sys/devices/virtual/dmi and /sys/class/dmi
//   (in place of the host's),
//   /sys/dev/char/MAJOR:N links, /dev/neuronN character devices (mode 0666,
//   as the driver's udev rule sets; opening them fails with ENXIO, as no
//   driver owns the major), and a "MAJOR neuron" line in /proc/devices.
// Each parent directory is replaced by a tmpfs holding its real entries bound
// back (prior-art.md §D.3). Refuses a host that has the real driver loaded.
// Throws mount_error naming the path and the reason.
void install_private_host_view(const std::string& tree_mount, const scratch_directory& scratch, const layout& layout);

// Makes directory `source` appear at the absolute path `target` inside the
// current (private) mount namespace, creating the missing directories of
// `target` in a tmpfs over its deepest existing ancestor (whose real entries
// are bound back, as above). Throws mount_error.
void install_private_directory(const std::string& source, const std::string& target, const scratch_directory& scratch);

} // namespace neuron::sysfs
