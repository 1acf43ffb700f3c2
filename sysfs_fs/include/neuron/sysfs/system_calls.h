#pragma once

#include <sys/statfs.h>
#include <sys/types.h>

namespace neuron::sysfs {

// The system calls the FUSE and mount paths make, behind one table so tests
// can inject EINTR, EAGAIN or failures (ARCHITECTURE.md "Conventions").
struct system_calls {
    ssize_t (*read)(int fd, void* buffer, size_t size);
    ssize_t (*write)(int fd, const void* buffer, size_t size);
    int (*umount2)(const char* target, int flags);
    int (*statfs)(const char* path, struct statfs* out);
};

// The table in use; tests replace entries and restore them.
system_calls& sys();

} // namespace neuron::sysfs
