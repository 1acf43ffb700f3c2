#pragma once

// What the FUSE server's two files share: libfuse at the version they are
// written for, the operations table, and the largest write it accepts.

#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 14)
#include <fuse_lowlevel.h>

#include <cstdint>

namespace neuron::sysfs {

// The handlers of fuse_server (fuse_server.cpp), for fuse_session_new.
fuse_lowlevel_ops fuse_server_operations();

// The most a WRITE request carries: what the serving loop's buffer holds
// besides the headers (fuse_session.cpp), told to the kernel at init.
constexpr std::uint32_t fuse_max_write = 1u << 20;

} // namespace neuron::sysfs
