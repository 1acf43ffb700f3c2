#pragma once

// Where threads run. On a small VM a wake-up that crosses to another
// (idle) vCPU costs tens of microseconds, more than a whole FUSE round trip,
// and which CPU the scheduler picks differs from run to run and from process
// to process. Benchmarks that compare two servers therefore place the
// measuring thread and every thread of each server explicitly: all on one
// CPU (what the path itself costs) and, for information, apart.

#include <initializer_list>
#include <sys/types.h>
#include <vector>

namespace neuron::bench {

int cpu_count();
// Every thread of `pid` (threads it starts later inherit it).
void pin_process(pid_t pid, int cpu);
void unpin_process(pid_t pid);
// The calling thread.
void pin_self(int cpu);
// The calling thread may run anywhere again.
void unpin_self();

// Pins the calling thread and every thread of the given processes to one
// CPU for its lifetime; lets them all run anywhere again when it ends, even
// when a measurement throws.
class pinned {
public:
    pinned(int cpu, std::initializer_list<pid_t> processes);
    ~pinned();
    pinned(const pinned&) = delete;
    pinned& operator=(const pinned&) = delete;

private:
    std::vector<pid_t> m_processes;
};

} // namespace neuron::bench
