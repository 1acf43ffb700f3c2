#pragma once

// SOCK_SEQPACKET connections over unix sockets: whole messages, a file
// descriptor passed alongside when needed. Every system call goes through
// socket_calls so tests can inject EINTR, EAGAIN and failures.

#include "neuron/protocol/wire.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace neuron::protocol {

struct socket_calls {
    int (*socket)(int domain, int type, int protocol);
    int (*connect)(int fd, const struct sockaddr* address, socklen_t length);
    ssize_t (*sendmsg)(int fd, const struct msghdr* message, int flags);
    ssize_t (*recvmsg)(int fd, struct msghdr* message, int flags);
    int (*poll)(struct pollfd* fds, nfds_t count, int timeout_ms);
    int (*close)(int fd);
    int (*accept4)(int fd, struct sockaddr* address, socklen_t* length, int flags);
};

// The table in use (one per binary that includes this header).
inline socket_calls& socket_sys() {
    static socket_calls table{::socket, ::connect, ::sendmsg, ::recvmsg, ::poll, ::close, ::accept4};
    return table;
}

// A peer went away, or a socket call failed; the message says which and why.
class connection_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline std::string errno_text(int error) { return std::strerror(error); }

inline sockaddr_un unix_address(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(address.sun_path)) {
        throw connection_error("control socket path '" + path + "' is empty or longer than " +
                               std::to_string(sizeof(address.sun_path) - 1) + " bytes");
    }
    std::memcpy(address.sun_path, path.data(), path.size());
    return address;
}

struct received_message {
    std::vector<std::uint8_t> bytes;
    int passed_fd = -1; // a descriptor sent along with it (SCM_RIGHTS), owned by the receiver
};

// Descriptors one message may bring: the first is the message's, the others
// are closed on arrival (no message of the protocol carries more than one).
inline constexpr std::size_t max_received_fds = 8;

// Takes the first descriptor a received message carried into `out` and
// closes every other one, whatever the sender packed into its control data.
inline void keep_first_descriptor(msghdr& message, received_message& out) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const auto count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (out.passed_fd < 0) {
                out.passed_fd = fd;
            } else {
                socket_sys().close(fd);
            }
        }
    }
}

enum class send_result { sent, would_block };

// Tries to send one whole message (and optionally a descriptor) without
// blocking; retries EINTR. Throws connection_error.
inline send_result try_send_message(int fd, const std::vector<std::uint8_t>& bytes, int pass_fd = -1) {
    iovec part{const_cast<std::uint8_t*>(bytes.data()), bytes.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (pass_fd >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof(control);
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(header), &pass_fd, sizeof(int));
    }
    for (;;) {
        const auto sent = socket_sys().sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) {
            if (static_cast<std::size_t>(sent) != bytes.size())
                throw connection_error("short send on a message socket");
            return send_result::sent;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return send_result::would_block;
        if (errno == EMSGSIZE)
            throw connection_error("a message of " + std::to_string(bytes.size()) +
                                   " bytes is larger than the socket takes");
        throw connection_error("sending failed: " + errno_text(errno));
    }
}

// Sends one whole message (and optionally a descriptor), waiting while the
// socket is full. Throws connection_error.
inline void send_message(int fd, const std::vector<std::uint8_t>& bytes, int pass_fd = -1) {
    while (try_send_message(fd, bytes, pass_fd) == send_result::would_block) {
        pollfd p{fd, POLLOUT, 0};
        if (socket_sys().poll(&p, 1, -1) < 0 && errno != EINTR) {
            throw connection_error("waiting to send failed: " + errno_text(errno));
        }
    }
}

// Every message of the protocol fits in this: a header and the largest body.
inline constexpr std::size_t max_message_size = header_size + max_body_size;

namespace detail {

// Where a thread receives: one mapping the size of the largest message, so
// each message is taken with a single recvmsg (a message socket drops what
// does not fit, and peeking for the size first cost a system call per
// message). The kernel backs only the pages messages are written to; after
// a large one they are given back.
class receive_buffer {
public:
    receive_buffer() {
        void* p = ::mmap(nullptr, max_message_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
        if (p == MAP_FAILED) throw connection_error("cannot map a receive buffer: " + errno_text(errno));
        m_bytes = static_cast<std::uint8_t*>(p);
    }
    ~receive_buffer() { ::munmap(m_bytes, max_message_size); }
    receive_buffer(const receive_buffer&) = delete;
    receive_buffer& operator=(const receive_buffer&) = delete;

    std::uint8_t* data() { return m_bytes; }

    // Gives back the pages a message of `size` bytes made resident.
    void release_after(std::size_t size) {
        if (size > release_above) ::madvise(m_bytes, size, MADV_DONTNEED);
    }

private:
    static constexpr std::size_t release_above = 1u << 20;
    std::uint8_t* m_bytes = nullptr;
};

inline receive_buffer& thread_receive_buffer() {
    static thread_local receive_buffer buffer;
    return buffer;
}

} // namespace detail

// Receives one whole message, waiting up to timeout_ms (-1: forever, 0: not
// at all). Returns nothing on timeout; throws connection_error when the peer
// closed or the call failed. A message larger than `max_size` (or than any
// message of the protocol) is taken off the socket, any descriptors it
// carried closed, and refused with protocol_error.
inline std::optional<received_message> receive_message(int fd, int timeout_ms = -1, std::size_t max_size = SIZE_MAX) {
    const auto limit = std::min(max_size, max_message_size);
    auto& buffer = detail::thread_receive_buffer();
    for (;;) {
        if (timeout_ms > 0) {
            pollfd p{fd, POLLIN, 0};
            const int ready = socket_sys().poll(&p, 1, timeout_ms);
            if (ready < 0) {
                if (errno == EINTR) continue;
                throw connection_error("waiting for the emulator failed: " + errno_text(errno));
            }
            if (ready == 0) return std::nullopt;
        }
        iovec part{buffer.data(), limit};
        msghdr message{};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        // Room for a few descriptors: the kernel installs as many as fit and
        // closes the rest itself (MSG_CTRUNC); every one installed is ours.
        alignas(cmsghdr) char control[CMSG_SPACE(max_received_fds * sizeof(int))] = {};
        message.msg_control = control;
        message.msg_controllen = sizeof(control);
        // MSG_TRUNC: the result is the message's whole size, even cut short.
        const int wait = timeout_ms < 0 ? 0 : MSG_DONTWAIT;
        const auto size = socket_sys().recvmsg(fd, &message, MSG_TRUNC | MSG_CMSG_CLOEXEC | wait);
        if (size < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (timeout_ms == 0) return std::nullopt; // nothing waiting
                if (timeout_ms < 0) {                     // a non-blocking socket: wait here
                    pollfd p{fd, POLLIN, 0};
                    if (socket_sys().poll(&p, 1, -1) < 0 && errno != EINTR) {
                        throw connection_error("waiting for the emulator failed: " + errno_text(errno));
                    }
                }
                continue;
            }
            throw connection_error("receiving from the emulator failed: " + errno_text(errno));
        }
        // Descriptors first: an empty message may still carry some.
        received_message out;
        keep_first_descriptor(message, out);
        if (size == 0) {
            if (out.passed_fd >= 0) socket_sys().close(out.passed_fd);
            throw connection_error("the emulator closed the connection");
        }
        const auto whole = static_cast<std::size_t>(size);
        if (whole > limit) {
            if (out.passed_fd >= 0) socket_sys().close(out.passed_fd);
            buffer.release_after(limit);
            throw protocol_error("a message of " + std::to_string(whole) + " bytes is larger than the " +
                                 std::to_string(limit) + " allowed");
        }
        out.bytes.assign(buffer.data(), buffer.data() + whole);
        buffer.release_after(whole);
        return out;
    }
}

// Connects a SOCK_SEQPACKET socket to `path`. Throws connection_error naming it.
inline int connect_seqpacket(const std::string& path) {
    const auto address = unix_address(path);
    const int fd = socket_sys().socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) throw connection_error("cannot create a unix socket: " + errno_text(errno));
    for (;;) {
        if (socket_sys().connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) return fd;
        if (errno == EINTR) continue;
        if (errno == EISCONN) return fd; // an interrupted connect that completed
        const int error = errno;
        socket_sys().close(fd);
        throw connection_error("cannot connect to the emulator at " + path + ": " + errno_text(error));
    }
}

} // namespace neuron::protocol
