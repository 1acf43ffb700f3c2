#include "signal_waiter.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <pthread.h>
#include <stdexcept>
#include <sys/signalfd.h>
#include <unistd.h>

namespace neuron::cli {

signal_waiter::signal_waiter(std::initializer_list<int> extra) {
    sigemptyset(&m_set);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&m_set, s);
    for (int s : extra) sigaddset(&m_set, s);
    pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
    m_fd = signalfd(-1, &m_set, SFD_CLOEXEC);
    if (m_fd < 0) {
        const int error = errno;
        pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
        throw std::runtime_error(fmt::format("cannot create a signalfd: {}", std::strerror(error)));
    }
}

signal_waiter::~signal_waiter() {
    close(m_fd);
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
}

int signal_waiter::wait(int fd) {
    for (;;) {
        struct pollfd fds[2] = {{m_fd, POLLIN, 0}, {fd, POLLIN, 0}};
        const int ready = ::poll(fds, fd >= 0 ? 2 : 1, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            throw std::runtime_error(fmt::format("waiting for signals failed: {}", std::strerror(errno)));
        }
        if (fds[0].revents & POLLIN) {
            signalfd_siginfo info{};
            if (::read(m_fd, &info, sizeof(info)) == static_cast<ssize_t>(sizeof(info))) {
                return static_cast<int>(info.ssi_signo);
            }
            continue;
        }
        if (fd >= 0 && fds[1].revents != 0) return 0;
    }
}

} // namespace neuron::cli
