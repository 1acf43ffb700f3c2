#pragma once

#include <sys/types.h>

namespace neuron::common {

enum class blocked_call { waiting_for_an_answer, something_else, gone };

// What a process's main thread is doing: blocked in a system call that waits
// for an answer on a socket (recvmsg(2), how the runtime's calls wait for
// the emulator, or poll(2)/ppoll(2), where the socket does not block or the
// wait has a time limit), something else, or nothing any more (the process
// is gone, or /proc cannot say).
blocked_call main_thread_call(pid_t pid);

} // namespace neuron::common
