#include "support/placement.h"

#include <fmt/format.h>

#include <filesystem>
#include <sched.h>
#include <string>
#include <unistd.h>

namespace neuron::bench {
namespace {

void set(pid_t tid, const cpu_set_t& set) { ::sched_setaffinity(tid, sizeof set, &set); }

cpu_set_t only(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return s;
}

cpu_set_t any() {
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int c = 0; c < static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)); ++c) CPU_SET(c, &s);
    return s;
}

} // namespace

int cpu_count() { return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)); }

void pin_process(pid_t pid, int cpu) {
    const auto s = only(cpu);
    for (const auto& task : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid))) {
        set(static_cast<pid_t>(std::stoi(task.path().filename().string())), s);
    }
}

void pin_self(int cpu) { set(0, only(cpu)); }

void unpin_self() { set(0, any()); }

void unpin_process(pid_t pid) {
    const auto s = any();
    for (const auto& task : std::filesystem::directory_iterator(fmt::format("/proc/{}/task", pid))) {
        set(static_cast<pid_t>(std::stoi(task.path().filename().string())), s);
    }
}

pinned::pinned(int cpu, std::initializer_list<pid_t> processes) : m_processes(processes) {
    for (const auto pid : m_processes) pin_process(pid, cpu);
    pin_self(cpu);
}

pinned::~pinned() {
    unpin_self();
    for (const auto pid : m_processes) {
        try {
            unpin_process(pid);
        } catch (const std::exception&) {
            // The process has ended: nothing left to unpin.
        }
    }
}

} // namespace neuron::bench
