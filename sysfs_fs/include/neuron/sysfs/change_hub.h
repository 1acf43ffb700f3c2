#pragma once

#include "neuron/sysfs/sysfs_tree.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace neuron::sysfs {

// Delivers a wake-up to whoever waits on a poll handle: for FUSE,
// fuse_lowlevel_notify_poll. A seam, so the hub can be tested without a mount.
class poll_waker {
public:
    virtual ~poll_waker() = default;
    virtual void wake(void* handle) = 0;    // notify, then release the handle
    virtual void discard(void* handle) = 0; // release without notifying
};

// One open file's poll registration.
struct poll_watch {
    node_id node = no_node;
    void* handle = nullptr; // kept until the file's node changes
    bool listed = false;
};

// kernfs's notification machinery: an event count per attribute that
// sysfs_notify() bumps, and the pollers to wake when it moves
// (prior-art.md §A.6, §D.5). changed() may be called from any thread: it
// never blocks on FUSE, and the wake-ups are sent from the hub's own thread,
// never from a thread serving a FUSE request; several changes before the
// waker runs collapse into one wake-up. changed_now() is for a thread that
// serves no FUSE request (the model's kernel thread): it sends the wake-ups
// itself, a thread hop sooner (bench/NOTES.md, figure 3).
class change_hub {
public:
    change_hub(std::size_t node_count, poll_waker& waker);
    ~change_hub();
    change_hub(const change_hub&) = delete;
    change_hub& operator=(const change_hub&) = delete;

    void changed(node_id node);
    // changed(), waking the node's pollers on the calling thread before it
    // returns. The waker must not block there (FUSE's poll notification only
    // wakes the kernel's wait queue), and the caller must not serve a FUSE
    // request. Nothing is woken once stop() has begun.
    void changed_now(node_id node);
    std::uint64_t event(node_id node) const { return m_events[node].load(std::memory_order_acquire); }

    // Keeps `handle` to wake on the next change of the watched node,
    // replacing one kept before. Call before reading event(), so a change in
    // between is either seen by the caller or wakes the handle.
    void arm(poll_watch& watch, void* handle);
    // The file is closing: drops its handle.
    void forget(poll_watch& watch);

    // Joins the waker thread and waits for a changed_now() that is waking;
    // handles still kept are discarded. Idempotent.
    void stop();

private:
    void run();
    void wake_node(node_id node);
    // Moves the node's armed handles to `out` and unlists their watches.
    void take_handles_locked(node_id node, std::vector<void*>& out);
    void unlist_locked(poll_watch& watch);

    std::size_t m_node_count;
    poll_waker& m_waker;
    std::unique_ptr<std::atomic<std::uint64_t>[]> m_events;
    std::unique_ptr<std::atomic<bool>[]> m_queued;

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<node_id> m_pending;
    std::unordered_map<node_id, std::vector<poll_watch*>> m_watchers;
    bool m_stopping = false;
    std::mutex m_join_mutex;
    std::thread m_thread;
    std::mutex m_waking_mutex;           // held by changed_now() while it wakes
    std::vector<void*> m_waking_handles; // changed_now()'s, kept for their capacity
};

} // namespace neuron::sysfs
