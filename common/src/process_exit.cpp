#include "neuron/common/process_exit.h"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <sys/wait.h>
#include <thread>

namespace neuron::common {

std::optional<int> reap_within(pid_t pid, int pidfd, std::chrono::milliseconds timeout) {
    using std::chrono::milliseconds;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        int raw = 0;
        const pid_t done = ::waitpid(pid, &raw, WNOHANG);
        if (done == pid) return raw;
        if (done < 0 && errno != EINTR) return std::nullopt;
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        if (pidfd >= 0) {
            pollfd ended{pidfd, POLLIN, 0};
            ::poll(&ended, 1, static_cast<int>(left.count()));
        } else {
            // No pidfd (a kernel before 5.3, a seccomp filter): look again shortly.
            std::this_thread::sleep_for(std::min(left, milliseconds(10)));
        }
    }
}

} // namespace neuron::common
