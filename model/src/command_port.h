#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <mutex>

namespace neuron::model {

// Where other threads hand work to the kernel: post() queues a task and calls
// async_request_update(); the kernel answers with an update, which wakes an
// SC_METHOD that runs every queued task at the current simulated time, or,
// when the kernel lags the wall clock (realtime mode), once it has caught up.
class command_port : public sc_core::sc_module {
public:
    using task = std::function<void()>;
    using lag_function = std::function<sc_core::sc_time()>;

    SC_HAS_PROCESS(command_port);
    command_port(sc_core::sc_module_name name, std::mutex& queue_mutex, lag_function lag);

    // Caller holds queue_mutex.
    void post_locked(task t);
    std::deque<task> take_all_locked();

private:
    class wakeup : public sc_core::sc_prim_channel {
    public:
        explicit wakeup(command_port& port);
        void request() { async_request_update(); }

    private:
        void update() override;
        command_port& m_port;
    };

    void run_tasks();

    std::mutex& m_mutex;
    lag_function m_lag;
    std::deque<task> m_tasks;
    wakeup m_wakeup;
    sc_core::sc_event m_ready;
};

} // namespace neuron::model
