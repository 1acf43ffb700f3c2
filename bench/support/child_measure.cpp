#include "support/child_measure.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::bench {

std::optional<child_result> in_child(const std::function<child_result()>& work) {
    int fds[2];
    if (pipe(fds) != 0) return std::nullopt;
    const pid_t pid = fork();
    if (pid < 0) return std::nullopt;
    if (pid == 0) {
        close(fds[0]);
        child_result r = work();
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        r.max_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
        const auto written = write(fds[1], &r, sizeof r);
        _exit(written == static_cast<ssize_t>(sizeof r) ? 0 : 1);
    }
    close(fds[1]);
    child_result r;
    const auto got = read(fds[0], &r, sizeof r);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != static_cast<ssize_t>(sizeof r) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    return r;
}

} // namespace neuron::bench
