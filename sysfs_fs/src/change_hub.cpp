#include "neuron/sysfs/change_hub.h"

#include "neuron/model/spec/errors.h"

#include <algorithm>

namespace neuron::sysfs {

change_hub::change_hub(std::size_t node_count, poll_waker& waker)
        : m_node_count(node_count), m_waker(waker),
          m_events(std::make_unique<std::atomic<std::uint64_t>[]>(node_count + 1)),
          m_queued(std::make_unique<std::atomic<bool>[]>(node_count + 1)) {
    for (std::size_t i = 0; i <= node_count; ++i) {
        m_events[i].store(0, std::memory_order_relaxed);
        m_queued[i].store(false, std::memory_order_relaxed);
    }
    m_thread = std::thread([this] { run(); });
}

change_hub::~change_hub() { stop(); }

void change_hub::changed(node_id node) {
    if (node == no_node || node > m_node_count) return;
    m_events[node].fetch_add(1, std::memory_order_acq_rel);
    if (m_queued[node].exchange(true, std::memory_order_acq_rel)) return; // a wake-up is on its way
    {
        std::lock_guard lock(m_mutex);
        m_pending.push_back(node);
    }
    m_wake.notify_one();
}

void change_hub::changed_now(node_id node) {
    if (node == no_node || node > m_node_count) return;
    m_events[node].fetch_add(1, std::memory_order_acq_rel);
    std::lock_guard waking(m_waking_mutex);
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return;
        take_handles_locked(node, m_waking_handles);
    }
    for (auto* h : m_waking_handles) m_waker.wake(h);
    m_waking_handles.clear();
}

void change_hub::arm(poll_watch& watch, void* handle) {
    void* replaced = nullptr;
    bool stopped = false;
    {
        std::lock_guard lock(m_mutex);
        stopped = m_stopping;
        if (!stopped) {
            replaced = watch.handle;
            watch.handle = handle;
            if (!watch.listed) {
                m_watchers[watch.node].push_back(&watch);
                watch.listed = true;
            }
        }
    }
    // One wake-up serves every earlier handle of a file: the old one can go.
    if (replaced != nullptr) m_waker.discard(replaced);
    if (stopped) m_waker.discard(handle);
}

void change_hub::forget(poll_watch& watch) {
    void* handle = nullptr;
    {
        std::lock_guard lock(m_mutex);
        handle = watch.handle;
        watch.handle = nullptr;
        unlist_locked(watch);
    }
    if (handle != nullptr) m_waker.discard(handle);
}

void change_hub::unlist_locked(poll_watch& watch) {
    if (!watch.listed) return;
    auto it = m_watchers.find(watch.node);
    if (it != m_watchers.end()) {
        std::erase(it->second, &watch);
        if (it->second.empty()) m_watchers.erase(it);
    }
    watch.listed = false;
}

void change_hub::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    {
        std::lock_guard join(m_join_mutex);
        if (m_thread.joinable()) m_thread.join();
    }
    {
        // A changed_now() that took its handles before m_stopping was set
        // wakes them before the waker may go away.
        std::lock_guard waking(m_waking_mutex);
    }
    std::vector<void*> leftovers;
    {
        std::lock_guard lock(m_mutex);
        for (auto& [node, watches] : m_watchers) {
            for (auto* w : watches) {
                if (w->handle != nullptr) leftovers.push_back(w->handle);
                w->handle = nullptr;
                w->listed = false;
            }
        }
        m_watchers.clear();
    }
    for (auto* h : leftovers) m_waker.discard(h);
}

void change_hub::run() {
    std::vector<node_id> batch;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_pending.empty(); });
            if (m_stopping) return;
            batch.swap(m_pending);
        }
        for (const auto node : batch) wake_node(node);
        batch.clear();
    }
}

void change_hub::wake_node(node_id node) {
    // Clear the flag first: a change from now on queues the node again.
    m_queued[node].store(false, std::memory_order_release);
    std::vector<void*> handles;
    {
        std::lock_guard lock(m_mutex);
        take_handles_locked(node, handles);
    }
    for (auto* h : handles) m_waker.wake(h);
}

void change_hub::take_handles_locked(node_id node, std::vector<void*>& out) {
    auto it = m_watchers.find(node);
    if (it == m_watchers.end()) return;
    for (auto* w : it->second) {
        if (w->handle != nullptr) out.push_back(w->handle);
        w->handle = nullptr;
        w->listed = false;
    }
    it->second.clear(); // the entry stays: the next arm() reuses it without allocating
}

} // namespace neuron::sysfs
