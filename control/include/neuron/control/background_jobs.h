#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace neuron::control {

// Work the I/O thread hands off so that no client waits for another's:
// one worker thread runs the jobs in the order they were posted.
// Destroying it drops the jobs not started and waits for the running one,
// which sees stopping() and should end at once.
class background_jobs {
public:
    background_jobs();
    ~background_jobs();
    background_jobs(const background_jobs&) = delete;
    background_jobs& operator=(const background_jobs&) = delete;

    // Any thread. `job` must not throw.
    void post(std::function<void()> job);
    // Any thread: true once the destructor has begun; a long job asks it often.
    bool stopping() const { return m_stopping.load(std::memory_order_relaxed); }

private:
    void work();

    std::mutex m_mutex;
    std::condition_variable m_posted;
    std::deque<std::function<void()>> m_jobs;
    std::atomic<bool> m_stopping = false;
    std::thread m_worker; // last: starts once the rest is ready
};

} // namespace neuron::control
