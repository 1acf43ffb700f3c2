#pragma once

#include <chrono>
#include <future>
#include <pthread.h>

namespace neuron::sysfs {

// Ends a thread's blocking system call (the FUSE loop's read(2) of
// /dev/fuse) with EINTR: a signal whose handler does nothing, installed
// without SA_RESTART. A loop that sleeps in the call rather than in poll(2)
// saves a system call per request, and this is how it is told to stop.
class call_interrupter {
public:
    // Installs the handler, once per process; before the thread to be
    // interrupted starts, as the signal's default action ends the process.
    static void install();
    // Unblocks the signal for the calling thread, the one to be interrupted.
    static void unblock_on_this_thread();

    // Signals `thread` until `finished` is ready: the thread checks whether
    // to stop before each call, and a signal that lands between that check
    // and the call is lost, so one signal is not enough.
    static void interrupt_until(pthread_t thread, const std::future<void>& finished,
                                std::chrono::milliseconds between = std::chrono::milliseconds(2));

    // The signal used (a real-time one, which nothing else here uses).
    static int signal_number();
};

} // namespace neuron::sysfs
