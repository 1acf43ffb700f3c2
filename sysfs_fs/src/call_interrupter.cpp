#include "neuron/sysfs/call_interrupter.h"

#include <csignal>
#include <mutex>

namespace neuron::sysfs {
namespace {

void do_nothing(int) {}

} // namespace

int call_interrupter::signal_number() { return SIGRTMIN + 4; }

void call_interrupter::install() {
    static std::once_flag installed;
    std::call_once(installed, [] {
        struct sigaction action {};
        action.sa_handler = do_nothing;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0; // no SA_RESTART: the interrupted call fails with EINTR
        ::sigaction(signal_number(), &action, nullptr);
    });
}

void call_interrupter::unblock_on_this_thread() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal_number());
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void call_interrupter::interrupt_until(pthread_t thread, const std::future<void>& finished,
                                       std::chrono::milliseconds between) {
    do {
        pthread_kill(thread, signal_number());
    } while (finished.wait_for(between) != std::future_status::ready);
}

} // namespace neuron::sysfs
