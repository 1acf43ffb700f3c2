#pragma once

// The minimal FUSE filesystem (support/floor_fs.h) in a process of its own,
// as the emulator is: `neuron-bench floor-fs DIR`. Measured in the same
// process instead, its requests would skip the address-space switch every
// request to another process pays, and the floor would be too low.

#include "neuron/common/child_process.h"

#include <chrono>
#include <string>

namespace neuron::bench {

class floor_process {
public:
    explicit floor_process(const std::string& directory); // mounts there; throws std::runtime_error
    ~floor_process();

    std::string file() const { return m_directory + "/counter"; }
    pid_t pid() const { return m_process.pid(); }
    // The counter changes (its notifier thread wakes pollers).
    void change() { m_process.send_line("change"); }
    // The same, answered as a request is: the floor's main thread hands the
    // change to the notifier, then writes a line back, which this reads.
    // Throws std::runtime_error when no answer comes.
    void change_answered();

private:
    std::string m_directory;
    common::child_process m_process;
};

// `neuron-bench floor-fs DIR`: serves until stdin ends or says "quit";
// "change" lines change the counter, "change-answered" lines too and are
// answered with a "changed" line.
int floor_fs_main(const char* directory);

} // namespace neuron::bench
