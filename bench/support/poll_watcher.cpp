#include "support/poll_watcher.h"

#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <unistd.h>
#include <utility>

namespace neuron::bench {
namespace {

void read_from_start(int fd) {
    char buffer[4096];
    ::lseek(fd, 0, SEEK_SET);
    while (::read(fd, buffer, sizeof buffer) > 0) {}
}

} // namespace

poll_watcher::poll_watcher(const std::string& path) {
    m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) throw std::runtime_error("poll_watcher: cannot open " + path);
    m_stop = ::eventfd(0, EFD_CLOEXEC);
    read_from_start(m_fd); // arms it
    m_thread = std::thread([this] {
        for (;;) {
            pollfd fds[2] = {{m_fd, POLLPRI, 0}, {m_stop, POLLIN, 0}};
            const int n = ::poll(fds, 2, -1);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 || fds[1].revents != 0 || (fds[0].revents & (POLLNVAL | POLLHUP)) != 0) return;
            if ((fds[0].revents & (POLLPRI | POLLERR)) == 0) continue;
            const auto now = std::chrono::steady_clock::now();
            read_from_start(m_fd);
            {
                std::lock_guard lock(m_mutex);
                m_wake = now;
            }
            m_cv.notify_one();
        }
    });
}

poll_watcher::~poll_watcher() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(m_stop, &one, sizeof one);
    m_thread.join();
    ::close(m_fd);
    ::close(m_stop);
}

std::optional<std::chrono::steady_clock::time_point>
poll_watcher::next_wake(std::chrono::steady_clock::time_point since, std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_mutex);
    if (!m_cv.wait_for(lock, timeout, [&] { return m_wake.has_value() && *m_wake >= since; })) return std::nullopt;
    return std::exchange(m_wake, std::nullopt);
}

} // namespace neuron::bench
