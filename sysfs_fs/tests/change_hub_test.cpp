#define BOOST_TEST_MODULE change_hub
#include <boost/test/unit_test.hpp>

#include "neuron/sysfs/change_hub.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace neuron::sysfs;

namespace {

constexpr std::size_t node_count = 8;
constexpr node_id barrier_node = node_count; // the last valid id, used only for barriers
// Only a broken hub makes a test wait this long; it never paces a passing one.
constexpr auto give_up = std::chrono::seconds(20);

void* handle(std::uintptr_t n) { return reinterpret_cast<void*>(n); }

// Records wake-ups and discards so a test can wait for them. wake() can be
// held at a gate, which keeps the hub's thread busy while the test queues
// more changes.
class fake_waker : public poll_waker {
public:
    void wake(void* h) override {
        std::function<void(void*)> hook;
        {
            std::unique_lock lock(m_mutex);
            ++m_woken[h];
            hook = m_on_wake;
            m_changed.notify_all();
            m_changed.wait(lock, [this] { return m_gate_open; });
        }
        if (hook) hook(h);
    }

    void discard(void* h) override {
        std::lock_guard lock(m_mutex);
        ++m_discarded[h];
        m_changed.notify_all();
    }

    bool wait_woken(void* h) {
        std::unique_lock lock(m_mutex);
        return m_changed.wait_for(lock, give_up, [&] { return m_woken.contains(h); });
    }

    int woken(void* h) const {
        std::lock_guard lock(m_mutex);
        const auto it = m_woken.find(h);
        return it == m_woken.end() ? 0 : it->second;
    }

    int discarded(void* h) const {
        std::lock_guard lock(m_mutex);
        const auto it = m_discarded.find(h);
        return it == m_discarded.end() ? 0 : it->second;
    }

    std::size_t total_woken() const {
        std::lock_guard lock(m_mutex);
        std::size_t n = 0;
        for (const auto& [h, count] : m_woken) n += static_cast<std::size_t>(count);
        return n;
    }

    void close_gate() {
        std::lock_guard lock(m_mutex);
        m_gate_open = false;
    }

    void open_gate() {
        std::lock_guard lock(m_mutex);
        m_gate_open = true;
        m_changed.notify_all();
    }

    // Runs on the hub's thread after the wake-up was recorded.
    void on_wake(std::function<void(void*)> hook) {
        std::lock_guard lock(m_mutex);
        m_on_wake = std::move(hook);
    }

private:
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::map<void*, int> m_woken;
    std::map<void*, int> m_discarded;
    bool m_gate_open = true;
    std::function<void(void*)> m_on_wake;
};

// Declared after the hub, so the gate is open before the hub joins its thread.
struct gate_guard {
    fake_waker& waker;
    ~gate_guard() { waker.open_gate(); }
};

poll_watch watch_on(node_id node) {
    poll_watch w;
    w.node = node;
    return w;
}

// Returns once every change made before the call has been handled by the
// hub's thread: the hub handles nodes in the order they changed, so when a
// handle armed on the barrier node wakes, everything queued earlier is done.
void barrier(change_hub& hub, fake_waker& waker) {
    static std::uintptr_t next = 0x10000;
    poll_watch w = watch_on(barrier_node);
    void* h = handle(next++);
    hub.arm(w, h);
    hub.changed(barrier_node);
    const bool woken = waker.wait_woken(h);
    if (!woken) hub.forget(w);
    BOOST_TEST_REQUIRE(woken);
}

} // namespace

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

BOOST_AUTO_TEST_CASE(armed_handle_wakes_once_on_a_change) {
    fake_waker waker;
    poll_watch w = watch_on(2);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

BOOST_AUTO_TEST_CASE(arming_again_replaces_and_discards_the_old_handle) {
    fake_waker waker;
    poll_watch w = watch_on(3);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

BOOST_AUTO_TEST_CASE(forget_discards_the_handle) {
    fake_waker waker;
    poll_watch w = watch_on(3);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

BOOST_AUTO_TEST_CASE(forgotten_watch_can_be_armed_again) {
    fake_waker waker;
    poll_watch w = watch_on(6);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

BOOST_AUTO_TEST_CASE(changes_to_no_node_or_unknown_ids_are_ignored) {
    fake_waker waker;
    poll_watch w = watch_on(1);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

BOOST_AUTO_TEST_CASE(changes_from_threads_wake_an_armed_handle) {
    fake_waker waker;
    poll_watch w = watch_on(2);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

// changed_now(): the model's kernel thread wakes the pollers itself.

BOOST_AUTO_TEST_CASE(changed_now_wakes_on_the_calling_thread_before_it_returns) {
    fake_waker waker;
    poll_watch w = watch_on(2);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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

BOOST_AUTO_TEST_CASE(changed_now_and_changed_share_the_count_and_the_handles) {
    fake_waker waker;
    poll_watch w = watch_on(5);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
    hub.changed(5); // queued for the hub's thread
    hub.changed_now(5);
    BOOST_TEST_REQUIRE(waker.wait_woken(handle(1)));
    barrier(hub, waker);
    BOOST_TEST(waker.woken(handle(1)) == 1); // one handle, one wake-up, whichever thread sent it
    BOOST_TEST(hub.event(5) == 2u);
}

BOOST_AUTO_TEST_CASE(changed_now_after_stop_counts_and_wakes_nobody) {
    fake_waker waker;
    poll_watch w = watch_on(1);
    change_hub hub(node_count, waker);
    hub.arm(w, handle(1));
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
