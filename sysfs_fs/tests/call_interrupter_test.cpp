#define BOOST_TEST_MODULE sysfs_call_interrupter
#include <boost/test/unit_test.hpp>

#include "neuron/sysfs/call_interrupter.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <future>
#include <thread>
#include <unistd.h>
#include <utility>

using neuron::sysfs::call_interrupter;

namespace {

struct pipe_pair {
    int fds[2] = {-1, -1};
    pipe_pair() { BOOST_REQUIRE(::pipe(fds) == 0); }
    ~pipe_pair() {
        ::close(fds[0]);
        ::close(fds[1]);
    }
};

// A loop shaped like the FUSE server's: check whether to stop, then sleep
// in a blocking read until something arrives or a signal ends the read.
struct reading_loop {
    std::atomic<bool> stopping{false};
    std::atomic<int> interrupted_reads{0};
    std::atomic<int> lost_signals{0};
    bool lose_first_signal = false;

    // `checked` is set once the loop has seen `stopping` false, before its
    // first read.
    void run(int fd, std::promise<void>& checked) {
        call_interrupter::unblock_on_this_thread();
        bool first = true;
        while (!stopping.load()) {
            if (std::exchange(first, false)) {
                if (lose_first_signal) {
                    lose_first();
                    checked.set_value();
                    take_the_signal();
                } else {
                    checked.set_value();
                }
            }
            char byte = 0;
            if (::read(fd, &byte, 1) < 0 && errno == EINTR) ++interrupted_reads;
        }
    }

    // The first signal lands between the check and the read, and so ends
    // nothing: it is held, then taken here.
    static sigset_t wake_signal() {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, call_interrupter::signal_number());
        return set;
    }
    static void lose_first() {
        const auto set = wake_signal();
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
    }
    void take_the_signal() {
        const auto set = wake_signal();
        const timespec limit{30, 0};
        if (::sigtimedwait(&set, nullptr, &limit) == call_interrupter::signal_number()) ++lost_signals;
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    }
};

// Runs `loop` on a thread, stops it with the interrupter once it has
// checked, and returns once the thread ended (a test that hangs here has
// failed).
void run_and_stop(reading_loop& loop) {
    pipe_pair pipe;
    call_interrupter::install();
    std::promise<void> ended;
    auto finished = ended.get_future();
    std::promise<void> checked;
    auto has_checked = checked.get_future();
    std::thread thread([&] {
        loop.run(pipe.fds[0], checked);
        ended.set_value();
    });
    has_checked.wait();
    loop.stopping = true;
    call_interrupter::interrupt_until(thread.native_handle(), finished);
    thread.join();
}

} // namespace

BOOST_AUTO_TEST_CASE(a_thread_asleep_in_a_read_is_woken_to_stop) {
    reading_loop loop;
    run_and_stop(loop);
    BOOST_TEST(loop.stopping.load());
}

BOOST_AUTO_TEST_CASE(a_signal_lost_before_the_read_is_sent_again) {
    reading_loop loop;
    loop.lose_first_signal = true;
    run_and_stop(loop);
    BOOST_TEST(loop.lost_signals.load() == 1);
    BOOST_TEST(loop.interrupted_reads.load() >= 1); // a later signal ended the read
}

BOOST_AUTO_TEST_CASE(the_handler_does_not_restart_calls) {
    call_interrupter::install();
    struct sigaction action {};
    BOOST_REQUIRE(::sigaction(call_interrupter::signal_number(), nullptr, &action) == 0);
    BOOST_TEST((action.sa_flags & SA_RESTART) == 0);
    BOOST_TEST(action.sa_handler != SIG_DFL); // delivering it never ends the process
}
