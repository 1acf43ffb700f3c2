#include "command_port.h"

namespace neuron::model {

command_port::wakeup::wakeup(command_port& port)
        : sc_prim_channel(sc_core::sc_gen_unique_name("wakeup")), m_port(port) {}

void command_port::wakeup::update() {
    if (const auto delay = m_port.m_schedule()) m_port.m_ready.notify(*delay);
}

command_port::command_port(sc_core::sc_module_name name, std::mutex& queue_mutex, schedule_function schedule,
                           std::function<void()> before_tasks)
        : sc_module(name), m_mutex(queue_mutex), m_schedule(std::move(schedule)),
          m_before_tasks(std::move(before_tasks)), m_wakeup(*this) {
    SC_METHOD(run_tasks);
    sensitive << m_ready;
    dont_initialize();
}

void command_port::post_locked(task t) {
    m_tasks.push_back(std::move(t));
    m_wakeup.request();
}

void command_port::release_held_locked() {
    if (!m_tasks.empty()) m_wakeup.request();
}

std::deque<command_port::task> command_port::take_all_locked() {
    std::deque<task> tasks;
    tasks.swap(m_tasks);
    return tasks;
}

void command_port::run_tasks() {
    std::deque<task> tasks;
    {
        std::lock_guard lock(m_mutex);
        tasks.swap(m_tasks);
    }
    m_before_tasks();
    for (auto& t : tasks) t();
}

} // namespace neuron::model
