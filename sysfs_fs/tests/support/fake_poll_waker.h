#pragma once

// What the change hub's tests share: a poll waker that records wake-ups and
// discards (and can hold the hub's thread at a gate), and a barrier.

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

#include <boost/test/unit_test.hpp>

namespace neuron::sysfs::testing {

constexpr std::size_t node_count = 8;
constexpr node_id barrier_node = node_count; // the last valid id, used only for barriers
// Only a broken hub makes a test wait this long; it never paces a passing one.
constexpr auto give_up = std::chrono::seconds(20);

inline void* handle(std::uintptr_t n) { return reinterpret_cast<void*>(n); }

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

inline poll_watch watch_on(node_id node) {
    poll_watch w;
    w.node = node;
    return w;
}

// A test's hub with one watch `w` on node `Node`, armed with handle(1);
// members in the order they must be built and torn down.
template <node_id Node>
struct one_armed_watch {
    one_armed_watch() { hub.arm(w, handle(1)); }
    fake_waker waker;
    poll_watch w = watch_on(Node);
    change_hub hub{node_count, waker};
};

// Returns once every change made before the call has been handled by the
// hub's thread: the hub handles nodes in the order they changed, so when a
// handle armed on the barrier node wakes, everything queued earlier is done.
inline void barrier(change_hub& hub, fake_waker& waker) {
    static std::uintptr_t next = 0x10000;
    poll_watch w = watch_on(barrier_node);
    void* h = handle(next++);
    hub.arm(w, h);
    hub.changed(barrier_node);
    const bool woken = waker.wait_woken(h);
    if (!woken) hub.forget(w);
    BOOST_TEST_REQUIRE(woken);
}

} // namespace neuron::sysfs::testing
