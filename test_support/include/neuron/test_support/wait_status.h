#pragma once

#include <string>

namespace neuron::test_support {

// Of a raw wait status (waitpid(2)): the exit status, or -1 when the process
// did not exit by itself.
int exit_status_of(int raw);
// The signal that ended the process, or 0.
int signal_of(int raw);
// "exit N", "signal N" or "stopped", for messages.
std::string describe_wait_status(int raw);

} // namespace neuron::test_support
