#pragma once

// A second client process for the control-server fuzzer. The server tells
// processes (and users) apart by the kernel's credentials of whoever called
// connect(2), so findings that need two processes (a stream of another's
// session, a rank taken in another's collective, caps per process and per
// user) need connections another process made. This one makes them on
// request and hands each back over a socket pair (SCM_RIGHTS); the fuzzer
// then drives it like its own. When the fuzzer runs as root, the second
// process is another user too (nobody).

#include <string>
#include <sys/types.h>

namespace neuron::fuzz {

class second_process {
public:
    // Forks the process; `socket` is the server's path. Call before any
    // thread starts: the child runs on after the fork.
    explicit second_process(const std::string& socket);
    ~second_process();
    second_process(const second_process&) = delete;
    second_process& operator=(const second_process&) = delete;

    // A connection to the server that the second process opened; -1 when it
    // could not (the server refused or is full). The second process has
    // closed its own copy by the time this returns.
    int connect();
    // The user the second process runs as.
    uid_t uid() const { return m_uid; }

private:
    pid_t m_pid = -1;
    int m_channel = -1;
    uid_t m_uid = 0;
};

} // namespace neuron::fuzz
