#pragma once

#include <chrono>
#include <optional>
#include <sys/types.h>

namespace neuron::common {

// Waits up to `timeout` for the child `pid` to end and reaps it: its raw
// wait status, or nothing while it still runs (or when it cannot be waited
// for). `pidfd` (from pidfd_open, or -1 where the kernel has none) makes the
// wait an event rather than a look every few milliseconds.
std::optional<int> reap_within(pid_t pid, int pidfd, std::chrono::milliseconds timeout);

} // namespace neuron::common
