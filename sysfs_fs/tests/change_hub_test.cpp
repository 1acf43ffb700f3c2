#define BOOST_TEST_MODULE change_hub
#include <boost/test/unit_test.hpp>

#include "support/fake_poll_waker.h"

using namespace neuron::sysfs;
using namespace neuron::sysfs::testing;

BOOST_AUTO_TEST_CASE(changed_counts_events_per_node) {
    fake_waker waker;
    change_hub hub(node_count, waker);
    BOOST_TEST(hub.event(3) == 0u);
    hub.changed(3);
    hub.changed(3);
    hub.changed(5);
    BOOST_TEST(hub.event(3) == 2u);
    BOOST_TEST(hub.event(5) == 1u);
    BOOST_TEST(hub.event(4) == 0u);
}

BOOST_FIXTURE_TEST_CASE(armed_handle_wakes_once_on_a_change, one_armed_watch<2>) {
    hub.changed(2);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1);
    BOOST_TEST(waker.discarded(handle(1)) == 0);
    // The handle was used up: a later change has nobody to wake.
    hub.changed(2);
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1);
    BOOST_TEST(waker.total_woken() == 3u); // handle 1 and the two barriers
}

BOOST_AUTO_TEST_CASE(changes_before_the_waker_runs_collapse_into_one_wake) {
    fake_waker waker;
    poll_watch busy = watch_on(1);
    poll_watch w = watch_on(2);
    change_hub hub(node_count, waker);
    gate_guard guard{waker};

    // Hold the hub's thread inside a wake-up of node 1.
    waker.close_gate();
    hub.arm(busy, handle(100));
    hub.changed(1);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(100)));

    // Three changes of node 2 while the hub cannot run.
    hub.arm(w, handle(1));
    hub.changed(2);
    hub.changed(2);
    hub.changed(2);
    BOOST_TEST(hub.event(2) == 3u);

    // When handle 1 wakes, re-arm at once with handle 2: a second queued
    // wake-up of node 2 would wake it.
    waker.on_wake([&](void* h) {
        if (h == handle(1)) hub.arm(w, handle(2));
    });
    waker.open_gate();
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1);
    BOOST_TEST(waker.woken(handle(2)) == 0);

    // Handle 2 is armed and wakes on the next change.
    hub.changed(2);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(2)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(2)) == 1);
    waker.on_wake({});
}

BOOST_AUTO_TEST_CASE(handle_armed_after_changes_waits_for_the_next_one) {
    fake_waker waker;
    poll_watch w = watch_on(4);
    change_hub hub(node_count, waker);
    hub.changed(4);
    hub.changed(4);
    barrier(hub, waker); // both changes are handled, with nobody armed

    hub.arm(w, handle(1));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 0);

    hub.changed(4);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    BOOST_TEST(hub.event(4) == 3u);
}

BOOST_FIXTURE_TEST_CASE(arming_again_replaces_and_discards_the_old_handle, one_armed_watch<3>) {
    BOOST_TEST(waker.discarded(handle(1)) == 0);
    hub.arm(w, handle(2));
    BOOST_TEST(waker.discarded(handle(1)) == 1); // at once, on the arming thread
    hub.changed(3);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(2)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 0);
    BOOST_TEST(waker.woken(handle(2)) == 1);
    BOOST_TEST(waker.discarded(handle(2)) == 0);
}

BOOST_FIXTURE_TEST_CASE(forget_discards_the_handle, one_armed_watch<3>) {
    hub.forget(w);
    BOOST_TEST(waker.discarded(handle(1)) == 1);
    hub.changed(3);
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 0);
    // Forgetting again, or a watch never armed, discards nothing.
    hub.forget(w);
    poll_watch never = watch_on(5);
    hub.forget(never);
    BOOST_TEST(waker.discarded(handle(1)) == 1);
}

BOOST_FIXTURE_TEST_CASE(forgotten_watch_can_be_armed_again, one_armed_watch<6>) {
    hub.forget(w);
    hub.arm(w, handle(2));
    hub.changed(6);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(2)));
    BOOST_TEST(waker.woken(handle(1)) == 0);
}

BOOST_AUTO_TEST_CASE(two_watches_on_one_node_both_wake) {
    fake_waker waker;
    poll_watch a = watch_on(2);
    poll_watch b = watch_on(2);
    change_hub hub(node_count, waker);
    hub.arm(a, handle(1));
    hub.arm(b, handle(2));
    hub.changed(2);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(2)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1);
    BOOST_TEST(waker.woken(handle(2)) == 1);
}

BOOST_AUTO_TEST_CASE(watch_on_another_node_is_not_woken) {
    fake_waker waker;
    poll_watch a = watch_on(1);
    change_hub hub(node_count, waker);
    hub.arm(a, handle(1));
    hub.changed(2);
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 0);
    hub.changed(1);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
}

BOOST_AUTO_TEST_CASE(stop_discards_armed_handles) {
    fake_waker waker;
    poll_watch a = watch_on(1);
    poll_watch b = watch_on(2);
    poll_watch c = watch_on(3);
    change_hub hub(node_count, waker);
    hub.arm(a, handle(1));
    hub.arm(b, handle(2));
    hub.arm(c, handle(3));
    hub.forget(c);
    hub.stop();
    BOOST_TEST(waker.discarded(handle(1)) == 1);
    BOOST_TEST(waker.discarded(handle(2)) == 1);
    BOOST_TEST(waker.discarded(handle(3)) == 1);
    BOOST_TEST(waker.total_woken() == 0u);
    hub.stop(); // idempotent
    BOOST_TEST(waker.discarded(handle(1)) == 1);
}

BOOST_AUTO_TEST_CASE(arm_after_stop_discards_at_once) {
    fake_waker waker;
    poll_watch a = watch_on(1);
    change_hub hub(node_count, waker);
    hub.stop();
    hub.arm(a, handle(7));
    BOOST_TEST(waker.discarded(handle(7)) == 1);
    hub.changed(1); // still counted, nobody to wake
    BOOST_TEST(hub.event(1) == 1u);
    hub.forget(a);
    BOOST_TEST(waker.discarded(handle(7)) == 1);
    BOOST_TEST(waker.total_woken() == 0u);
}

BOOST_FIXTURE_TEST_CASE(changes_to_no_node_or_unknown_ids_are_ignored, one_armed_watch<1>) {
    hub.changed(no_node);
    hub.changed(static_cast<node_id>(node_count + 1));
    hub.changed(1000000);
    hub.changed(0xffffffffu);
    barrier(hub, waker);
    BOOST_TEST(hub.event(no_node) == 0u);
    for (node_id n = 1; n < barrier_node; ++n) BOOST_TEST(hub.event(n) == 0u);
    BOOST_TEST(waker.woken(handle(1)) == 0);
    // The highest valid id is an ordinary node.
    BOOST_TEST(hub.event(barrier_node) == 1u);
}

BOOST_AUTO_TEST_CASE(concurrent_changes_are_all_counted_and_every_handle_ends_once) {
    constexpr int writers = 4;
    constexpr int changes_per_writer = 20000;
    constexpr std::uintptr_t handles = 3000;

    fake_waker waker;
    poll_watch w = watch_on(1);
    change_hub hub(node_count, waker);

    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < writers; ++t) {
        threads.emplace_back([&, t] {
            while (!go.load()) std::this_thread::yield();
            for (int i = 0; i < changes_per_writer; ++i) hub.changed(static_cast<node_id>(1 + (i + t) % 3));
        });
    }
    threads.emplace_back([&] {
        while (!go.load()) std::this_thread::yield();
        for (std::uintptr_t i = 1; i <= handles; ++i) {
            hub.arm(w, handle(i));
            if (i % 3 == 0) hub.forget(w);
        }
    });
    go.store(true);
    for (auto& t : threads) t.join();

    // Every change is counted, on the node it was made to.
    std::uint64_t total = 0;
    for (node_id n = 1; n <= 3; ++n) total += hub.event(n);
    BOOST_TEST(total == std::uint64_t{writers} * changes_per_writer);
    for (node_id n = 1; n <= 3; ++n) {
        std::uint64_t expected = 0;
        for (int t = 0; t < writers; ++t) {
            for (int i = 0; i < changes_per_writer; ++i) expected += (1 + (i + t) % 3) == static_cast<int>(n) ? 1 : 0;
        }
        BOOST_TEST(hub.event(n) == expected, "node " << n);
    }

    hub.stop();
    // Every handle was either woken or discarded, exactly once.
    for (std::uintptr_t i = 1; i <= handles; ++i) {
        const int ends = waker.woken(handle(i)) + waker.discarded(handle(i));
        BOOST_TEST_REQUIRE(ends == 1, "handle " << i << " woken " << waker.woken(handle(i)) << " discarded "
                                                << waker.discarded(handle(i)));
    }
}

BOOST_FIXTURE_TEST_CASE(changes_from_threads_wake_an_armed_handle, one_armed_watch<2>) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i) hub.changed(2);
        });
    }
    for (auto& t : threads) t.join();
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1);
    BOOST_TEST(hub.event(2) == 3000u);
}
