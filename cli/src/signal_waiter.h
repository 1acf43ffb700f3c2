#pragma once

#include <csignal>
#include <initializer_list>

namespace neuron::cli {

// Blocks termination signals (SIGINT, SIGTERM, SIGHUP, and any extra ones)
// in the calling thread, so threads started afterwards inherit the mask and
// the signals are only ever seen through wait(). Construct it before
// starting any thread. Restores the old mask when destroyed.
class signal_waiter {
public:
    explicit signal_waiter(std::initializer_list<int> extra = {});
    ~signal_waiter();
    signal_waiter(const signal_waiter&) = delete;
    signal_waiter& operator=(const signal_waiter&) = delete;

    // Waits for a signal, or for `fd` (if >= 0) to become readable. Returns
    // the signal number, or 0 when `fd` became readable.
    int wait(int fd = -1);

private:
    sigset_t m_set{};
    sigset_t m_old{};
    int m_fd = -1;
};

} // namespace neuron::cli
