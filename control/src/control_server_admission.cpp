// Admission to the control server: accepting connections (pausing at the
// descriptor limit), the cap on connections, and the hello deadline.
#include "control_server_connection.h"

#include "neuron/control/control_server.h"
#include "neuron/protocol/seqpacket.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace neuron::control {
namespace {

using protocol::message_type;

// Replies up to a large status report fit without blocking the I/O thread.
constexpr int reply_send_buffer = 8 << 20;

void arm_timer(int timer_fd, std::chrono::nanoseconds after) {
    itimerspec when{};
    const auto ns = std::max<std::int64_t>(after.count(), 1); // zero would disarm it
    when.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    when.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    ::timerfd_settime(timer_fd, 0, &when, nullptr);
}

} // namespace

void control_server::accept_connections() {
    for (;;) {
        const int fd = protocol::socket_sys().accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            const int error = errno;
            if (error == EINTR || error == ECONNABORTED) continue;
            if (error == EAGAIN || error == EWOULDBLOCK) return;
            if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
                pause_accepting(error);
                return;
            }
            m_log(fmt::format("accept failed: {}", std::strerror(error)));
            return;
        }
        m_accept_trouble_logged = false;
        const auto peer = credentials_of(fd);
        if (!peer) {
            refuse(fd, fmt::format("the emulator cannot tell which process connected (SO_PEERCRED: {})",
                                   std::strerror(errno)));
            continue;
        }
        if (const auto why = m_census.refusal(*peer)) {
            refuse(fd, *why);
            continue;
        }
        if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &reply_send_buffer, sizeof(reply_send_buffer)) != 0) {
            ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &reply_send_buffer, sizeof(reply_send_buffer));
        }
        auto c = std::make_unique<connection>();
        c->id = m_next_connection++;
        c->fd = fd;
        c->peer = *peer;
        c->accepted = std::chrono::steady_clock::now();
        epoll_event e{};
        e.events = EPOLLIN;
        e.data.u64 = c->id;
        if (::epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, fd, &e) != 0) {
            ::close(fd);
            continue;
        }
        m_census.add(c->peer);
        m_connections[c->id] = std::move(c);
        arm_hello_timer();
    }
}

// Out of descriptors: the listening socket stays readable, so it leaves the
// epoll set until a connection closes or a moment has passed (else the loop
// would spin on it). Waiting clients stay in the backlog.
void control_server::pause_accepting(int error) {
    if (!m_accept_trouble_logged) {
        m_log(fmt::format("cannot accept connections: {} ({} open); new clients wait", std::strerror(error),
                          m_connections.size()));
        m_accept_trouble_logged = true;
    }
    if (m_accept_paused) return;
    epoll_event e{};
    e.data.u64 = listen_key;
    ::epoll_ctl(m_epoll_fd, EPOLL_CTL_MOD, m_listen_fd, &e);
    m_accept_paused = true;
    arm_timer(m_accept_timer_fd, m_options.limits.accept_pause);
}

void control_server::resume_accepting() {
    if (!m_accept_paused) return;
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = listen_key;
    ::epoll_ctl(m_epoll_fd, EPOLL_CTL_MOD, m_listen_fd, &e);
    m_accept_paused = false;
}

void control_server::refuse(int fd, const std::string& reason) {
    try {
        protocol::try_send_message(
            fd, protocol::make_message(message_type::error, 0,
                                       protocol::error_reply{runtime_api::nrt_status::resource, reason}));
    } catch (const protocol::connection_error&) {}
    ::close(fd);
}

// Connections that never said hello hold a descriptor each: they get
// hello_timeout, then are told why and closed.
void control_server::close_silent_connections() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> silent;
    for (const auto& [id, c] : m_connections) {
        if (!c->greeted && now - c->accepted >= m_options.limits.hello_timeout) silent.push_back(id);
    }
    for (const auto id : silent) {
        drop(*m_connections.at(id),
             fmt::format("no hello within {} ms of connecting", m_options.limits.hello_timeout.count()));
    }
    arm_hello_timer();
}

void control_server::arm_hello_timer() {
    std::optional<std::chrono::steady_clock::time_point> earliest;
    for (const auto& [id, c] : m_connections) {
        if (!c->greeted && (!earliest || c->accepted < *earliest)) earliest = c->accepted;
    }
    if (!earliest) return; // a timer that fires with nothing to do is harmless
    arm_timer(m_hello_timer_fd, *earliest + m_options.limits.hello_timeout - std::chrono::steady_clock::now());
}

} // namespace neuron::control
