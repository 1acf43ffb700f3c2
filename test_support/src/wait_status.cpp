#include "neuron/test_support/wait_status.h"

#include <fmt/format.h>

#include <sys/wait.h>

namespace neuron::test_support {

int exit_status_of(int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1; }

int signal_of(int raw) { return WIFSIGNALED(raw) ? WTERMSIG(raw) : 0; }

std::string describe_wait_status(int raw) {
    if (WIFEXITED(raw)) return fmt::format("exit {}", WEXITSTATUS(raw));
    if (WIFSIGNALED(raw)) return fmt::format("signal {}", WTERMSIG(raw));
    return "stopped";
}

} // namespace neuron::test_support
