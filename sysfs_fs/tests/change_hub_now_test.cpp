#define BOOST_TEST_MODULE change_hub_now
#include <boost/test/unit_test.hpp>

#include "support/fake_poll_waker.h"

using namespace neuron::sysfs;
using namespace neuron::sysfs::testing;

// changed_now(): the model's kernel thread wakes the pollers itself.

BOOST_FIXTURE_TEST_CASE(changed_now_wakes_on_the_calling_thread_before_it_returns, one_armed_watch<2>) {
    std::thread::id woke_on;
    waker.on_wake([&](void*) { woke_on = std::this_thread::get_id(); });
    hub.changed_now(2);
    BOOST_TEST(waker.woken(handle(1)) == 1); // no waiting: it happened inside the call
    BOOST_TEST((woke_on == std::this_thread::get_id()));
    BOOST_TEST(hub.event(2) == 1u);
    waker.on_wake({});
    // The handle was used up; the next change counts and wakes nobody.
    hub.changed_now(2);
    BOOST_TEST(hub.event(2) == 2u);
    BOOST_TEST(waker.total_woken() == 1u);
    BOOST_TEST(waker.discarded(handle(1)) == 0);
}

BOOST_AUTO_TEST_CASE(changed_now_wakes_every_watch_of_the_node_and_no_other) {
    fake_waker waker;
    poll_watch a = watch_on(2);
    poll_watch b = watch_on(2);
    poll_watch other = watch_on(3);
    change_hub hub(node_count, waker);
    hub.arm(a, handle(1));
    hub.arm(b, handle(2));
    hub.arm(other, handle(3));
    hub.changed_now(2);
    BOOST_TEST(waker.woken(handle(1)) == 1);
    BOOST_TEST(waker.woken(handle(2)) == 1);
    BOOST_TEST(waker.woken(handle(3)) == 0);
    // A watch woken at once can be armed again, as a poller re-polling does.
    hub.arm(a, handle(4));
    hub.changed_now(2);
    BOOST_TEST(waker.woken(handle(4)) == 1);
    hub.stop();
    BOOST_TEST(waker.discarded(handle(3)) == 1);
}

BOOST_FIXTURE_TEST_CASE(changed_now_and_changed_share_the_count_and_the_handles, one_armed_watch<5>) {
    hub.changed(5); // queued for the hub's thread
    hub.changed_now(5);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1); // one handle, one wake-up, whichever thread sent it
    BOOST_TEST(hub.event(5) == 2u);
}

BOOST_FIXTURE_TEST_CASE(changed_now_after_stop_counts_and_wakes_nobody, one_armed_watch<1>) {
    hub.stop();
    hub.changed_now(1);
    BOOST_TEST(hub.event(1) == 1u);
    BOOST_TEST(waker.total_woken() == 0u);
    BOOST_TEST(waker.discarded(handle(1)) == 1);
}

BOOST_AUTO_TEST_CASE(stop_waits_for_a_wake_up_changed_now_is_sending) {
    fake_waker waker;
    poll_watch w = watch_on(1);
    change_hub hub(node_count, waker);
    gate_guard guard{waker};
    hub.arm(w, handle(1));

    std::mutex order_mutex;
    std::vector<std::string> order;
    const auto note = [&](const char* what) {
        std::lock_guard lock(order_mutex);
        order.emplace_back(what);
    };
    waker.close_gate();
    waker.on_wake([&](void*) { note("wake returned"); });
    std::thread changer([&] { hub.changed_now(1); });
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1))); // held at the gate, inside the wake-up
    std::thread stopper([&] {
        hub.stop();
        note("stop returned");
    });
    // Whatever this pause is, a stop() that does not wait returns inside it
    // and is caught below; one that waits passes however long it is.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    waker.open_gate();
    changer.join();
    stopper.join();
    BOOST_TEST_REQUIRE(order.size() == 2u);
    BOOST_TEST(order[0] == "wake returned");
    BOOST_TEST(order[1] == "stop returned");
    waker.on_wake({});
}
