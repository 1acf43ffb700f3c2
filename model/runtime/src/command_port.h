#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <mutex>
#include <optional>

namespace neuron::model {

// Where other threads hand work to the kernel: post_locked() queues a task and
// calls async_request_update(); the kernel answers with an update, which asks
// `schedule` when the queued tasks may run: after a delay (zero: in the next
// delta cycle), or not yet (held until release_held_locked()). An SC_METHOD
// then runs every queued task.
class command_port : public sc_core::sc_module {
public:
    using task = std::function<void()>;
    using schedule_function = std::function<std::optional<sc_core::sc_time>()>;

    SC_HAS_PROCESS(command_port);
    // before_tasks runs on the kernel thread just before each batch of tasks.
    command_port(sc_core::sc_module_name name, std::mutex& queue_mutex, schedule_function schedule,
                 std::function<void()> before_tasks);

    // Caller holds queue_mutex.
    void post_locked(task t);
    void release_held_locked();
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
    schedule_function m_schedule;
    std::function<void()> m_before_tasks;
    std::deque<task> m_tasks;
    wakeup m_wakeup;
    sc_core::sc_event m_ready;
};

} // namespace neuron::model
