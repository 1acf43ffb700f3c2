#define BOOST_TEST_MODULE common_wake_signal
#include <boost/test/unit_test.hpp>

#include "neuron/common/wake_signal.h"

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

using neuron::common::wake_signal;
using std::chrono::steady_clock;

BOOST_AUTO_TEST_CASE(a_wake_given_before_the_sleep_is_kept_for_it) {
    wake_signal signal;
    signal.wake();
    BOOST_TEST(signal.sleep(steady_clock::now())); // already past: only a kept wake returns true
}

BOOST_AUTO_TEST_CASE(wakes_given_while_awake_count_once) {
    wake_signal signal;
    signal.wake();
    signal.wake();
    BOOST_TEST(signal.sleep(steady_clock::now()));
    BOOST_TEST(!signal.sleep(steady_clock::now()));
}

BOOST_AUTO_TEST_CASE(a_sleep_ends_false_when_its_time_passed) {
    wake_signal signal;
    const auto until = steady_clock::now() + std::chrono::milliseconds(5);
    BOOST_TEST(!signal.sleep(until));
    BOOST_TEST((steady_clock::now() >= until));
}

BOOST_AUTO_TEST_CASE(a_sleeping_thread_is_woken) {
    wake_signal signal;
    std::promise<void> about_to_sleep;
    auto sleeping = about_to_sleep.get_future();
    std::atomic<bool> woken{false};
    std::thread sleeper([&] {
        about_to_sleep.set_value();
        woken = signal.sleep(); // no time limit: only wake() ends it
    });
    sleeping.wait();
    signal.wake(); // before or during the sleep: either way it ends
    sleeper.join();
    BOOST_TEST(woken.load());
}

BOOST_AUTO_TEST_CASE(no_wake_is_lost_between_two_threads) {
    wake_signal to_sleeper;
    wake_signal to_waker;
    constexpr int rounds = 20000;
    std::thread sleeper([&] {
        for (int i = 0; i < rounds; ++i) {
            to_sleeper.sleep();
            to_waker.wake();
        }
    });
    for (int i = 0; i < rounds; ++i) {
        to_sleeper.wake();
        to_waker.sleep(); // a lost wake would hang here
    }
    sleeper.join();
    BOOST_TEST(true);
}
