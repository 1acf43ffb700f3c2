#include "neuron/control/control_server.h"

#include "control_server_connection.h"

#include "neuron/model/spec/errors.h"
#include "neuron/model/state/published_state.h"
#include "neuron/protocol/seqpacket.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

namespace neuron::control {
namespace {

using protocol::message_type;
using protocol::peer_role;

// Descriptors kept free for everything else the process opens (FUSE
// requests, memfds of new debug streams, files, a refusal's accept).
constexpr std::size_t descriptor_reserve = 64;
constexpr int messages_per_turn = 64; // read of a runtime's queue to reach a hang-up behind it
// A hello's label names the process in errors and the tools (NEURON_PROCESS_TAG: up to 255 characters).
constexpr std::size_t max_label_bytes = 255;

[[noreturn]] void fail(const std::string& what) {
    throw model::model_error(fmt::format("control socket: {}: {}", what, std::strerror(errno)));
}

// The connections the descriptor limit leaves room for.
std::size_t connection_ceiling(std::size_t wanted) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
    const auto room = limit.rlim_cur > descriptor_reserve ? limit.rlim_cur - descriptor_reserve : 1;
    return std::min<std::size_t>(wanted, room);
}

void drain_counter(int fd) {
    std::uint64_t count = 0;
    [[maybe_unused]] const auto n = ::read(fd, &count, sizeof(count));
}

// A socket file left by a server that died is removed; a live one refuses.
void clear_stale_socket(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return;
    if (!S_ISSOCK(st.st_mode)) {
        throw model::model_error(fmt::format("control socket: {} exists and is not a socket", path));
    }
    try {
        const int probe = protocol::connect_seqpacket(path);
        ::close(probe);
        throw model::model_error(
            fmt::format("control socket: another emulator is serving at {} (give --control another path)", path));
    } catch (const protocol::connection_error&) {
        ::unlink(path.c_str());
    }
}

} // namespace

control_server::control_server(model::simulation& sim, control_options options)
        : m_model(sim), m_options(std::move(options)), m_log(m_options.log),
          m_census({connection_ceiling(m_options.limits.max_connections), m_options.limits.max_per_process,
                    m_options.limits.max_per_user, static_cast<std::uint32_t>(::geteuid())}),
          m_hub([this] { wake(); }, m_options.limits.streams),
          m_runtime(m_model, m_hub,
                    [this](std::uint64_t connection_id, std::vector<std::uint8_t> message) {
                        {
                            std::lock_guard lock(m_deferred_mutex);
                            m_deferred.emplace_back(connection_id, std::move(message));
                        }
                        wake();
                    }),
          m_control(m_model, m_hub, m_runtime, m_options.driver_release) {
    const auto parent = std::filesystem::path(m_options.path).parent_path();
    if (!parent.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(parent, ignored);
    }
    clear_stale_socket(m_options.path);
    const auto address = protocol::unix_address(m_options.path);
    m_listen_fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m_listen_fd < 0) fail("socket");
    const auto old_mask = ::umask(077); // no window where others could connect
    const int bound = ::bind(m_listen_fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
    ::umask(old_mask);
    if (bound != 0) {
        const int error = errno;
        ::close(m_listen_fd);
        errno = error;
        fail(fmt::format("cannot listen at {}", m_options.path));
    }
    if (::chmod(m_options.path.c_str(), m_options.mode) != 0 || ::listen(m_listen_fd, 128) != 0) {
        const int error = errno;
        ::close(m_listen_fd);
        ::unlink(m_options.path.c_str());
        errno = error;
        fail(fmt::format("cannot listen at {}", m_options.path));
    }
    m_epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    m_wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    m_stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    m_accept_timer_fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    m_hello_timer_fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (m_epoll_fd < 0 || m_wake_fd < 0 || m_stop_fd < 0 || m_accept_timer_fd < 0 || m_hello_timer_fd < 0) {
        fail("epoll/eventfd/timerfd");
    }
    for (const auto& [fd, key] : {std::pair{m_listen_fd, listen_key},
                                  {m_wake_fd, wake_key},
                                  {m_stop_fd, stop_key},
                                  {m_accept_timer_fd, accept_timer_key},
                                  {m_hello_timer_fd, hello_timer_key}}) {
        epoll_event e{};
        e.events = EPOLLIN;
        e.data.u64 = key;
        if (::epoll_ctl(m_epoll_fd, EPOLL_CTL_ADD, fd, &e) != 0) fail("epoll_ctl");
    }
    // The model's device prints go to the debug streams.
    m_model.connect_debug_events([this](model::debug_event&& e) { return m_hub.deliver(std::move(e)); });
    m_thread = std::thread([this] { run(); });
}

control_server::~control_server() {
    stop();
    for (const int fd : {m_epoll_fd, m_wake_fd, m_stop_fd, m_accept_timer_fd, m_hello_timer_fd}) {
        if (fd >= 0) ::close(fd);
    }
}

void control_server::stop() {
    std::lock_guard lock(m_stop_mutex);
    if (!m_thread.joinable()) return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(m_stop_fd, &one, sizeof(one));
    m_thread.join();
    m_runtime.stop_deferred_replies(); // before the queue they would go to is destroyed
    try {
        m_model.connect_debug_events({});
    } catch (const model::simulation_error&) {}
    std::vector<std::uint64_t> ids;
    for (const auto& [id, c] : m_connections) ids.push_back(id);
    for (const auto id : ids) close_connection(id);
    ::close(m_listen_fd);
    ::unlink(m_options.path.c_str());
}

void control_server::wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(m_wake_fd, &one, sizeof(one));
}

void control_server::run() {
    epoll_event events[64];
    for (;;) {
        const int ready = ::epoll_wait(m_epoll_fd, events, 64, -1);
        if (ready < 0) {
            if (errno == EINTR) continue;
            m_log(fmt::format("epoll_wait failed: {}; the control channel stops", std::strerror(errno)));
            return;
        }
        for (int i = 0; i < ready; ++i) {
            if (events[i].data.u64 == stop_key) return;
            try {
                handle_event(events[i]);
            } catch (const std::exception& e) {
                // Whatever went wrong belongs to that one event: the server goes on.
                const auto key = events[i].data.u64;
                m_log(
                    fmt::format("serving {} failed: {}", key >= hello_timer_key ? "the server" : "a client", e.what()));
                if (key < hello_timer_key) close_connection(key);
            }
        }
    }
}

void control_server::handle_event(const epoll_event& event) {
    const auto key = event.data.u64;
    if (key == listen_key) {
        accept_connections();
    } else if (key == wake_key) {
        drain_counter(m_wake_fd);
        drain_deferred();
        flush_streams();
    } else if (key == accept_timer_key) {
        drain_counter(m_accept_timer_fd);
        resume_accepting();
    } else if (key == hello_timer_key) {
        drain_counter(m_hello_timer_fd);
        close_silent_connections();
    } else if (const auto it = m_connections.find(key); it != m_connections.end()) {
        auto& c = *it->second;
        if ((event.events & EPOLLOUT) && c.stream_open) watch_writable(c, m_hub.flush(c.id));
        // One message a turn: epoll (level-triggered) reports the connection
        // again while it holds more, and a socket just emptied is not asked
        // again before the server sleeps.
        if (event.events & (EPOLLIN | EPOLLHUP | EPOLLERR)) serve(c, 1);
    }
}

void control_server::serve(connection& c, int most) {
    const auto id = c.id;
    for (int turn = 0; turn < most; ++turn) {
        std::optional<protocol::received_message> message;
        try {
            message = protocol::receive_message(c.fd, 0, protocol::max_message_size);
        } catch (const protocol::connection_error&) {
            close_connection(id); // the peer went away (a crash included)
            return;
        } catch (const protocol::protocol_error& e) {
            drop(c, e.what());
            return;
        }
        if (!message) return;
        dispatch(c, message->bytes, message->passed_fd);
        if (!m_connections.contains(id)) return;
    }
}

void control_server::dispatch(connection& c, const std::vector<std::uint8_t>& message, int passed_fd) {
    if (passed_fd >= 0) ::close(passed_fd); // clients have no descriptors to give
    protocol::frame_header header;
    try {
        header = protocol::decode_header(message.data(), message.size());
    } catch (const protocol::protocol_error& e) {
        drop(c, e.what());
        return;
    }
    const auto* body = message.data() + protocol::header_size;
    const auto size = message.size() - protocol::header_size;
    const auto id = c.id;
    const auto pid = c.peer.pid;
    std::uint32_t failed_status = runtime_api::nrt_status::failure;
    std::string failure;
    try {
        answer(c, header, body, size);
        return;
    } catch (const protocol::protocol_error& e) {
        drop(c, e.what());
        return;
    } catch (const protocol::connection_error&) {
        close_connection(id);
        return;
    } catch (const std::bad_alloc&) {
        failed_status = runtime_api::nrt_status::resource;
        failure = "the emulator ran out of memory serving this request";
    } catch (const std::exception& e) {
        failure = fmt::format("the emulator failed serving this request: {}", e.what());
    }
    // One request failed; its client gets the reason and the server goes on.
    m_log(fmt::format("request type {} from client {} (pid {}): {}", header.type, id, pid, failure));
    if (!m_connections.contains(id)) return;
    try {
        send(c, protocol::make_message(message_type::error, header.request_id,
                                       protocol::error_reply{failed_status, failure}));
    } catch (const std::exception&) {
        close_connection(id);
    }
}

void control_server::answer(connection& c, const protocol::frame_header& header, const std::uint8_t* body,
                            std::size_t size) {
    if (!c.greeted) {
        if (static_cast<message_type>(header.type) != message_type::hello) {
            throw protocol::protocol_error("the first message must be a hello");
        }
        const auto hello = protocol::decode_body<protocol::hello>(body, size, "hello");
        if (hello.label.size() > max_label_bytes) {
            throw protocol::protocol_error(
                fmt::format("hello: a label of {} bytes; at most {} (NEURON_PROCESS_TAG's limit)", hello.label.size(),
                            max_label_bytes));
        }
        c.greeted = true;
        c.role = hello.role;
        c.label = hello.label;
        send(c, protocol::make_message(message_type::hello_ok, header.request_id,
                                       protocol::hello_ok{"neuron-emu " NEURON_EMU_VERSION,
                                                          std::string(m_model.published().instance().name)}));
        return;
    }
    switch (c.role) {
    case peer_role::runtime:
        if (auto reply = m_runtime.handle(c.id, c.peer, c.label, header, body, size)) {
            // Executions the request ended (closing the session) answer first.
            drain_deferred();
            if (m_connections.contains(c.id)) send(c, *reply);
        }
        return;
    case peer_role::control:
        // A process that died before this request was sent is released
        // before it is answered, whatever order epoll reported them in.
        settle_runtime_hangups();
        send(c, m_control.handle(header, body, size, m_census.administers(c.peer)));
        return;
    case peer_role::debug_stream: open_stream(c, header, body, size); return;
    }
}

void control_server::open_stream(connection& c, const protocol::frame_header& header, const std::uint8_t* body,
                                 std::size_t size) {
    if (c.stream_open || static_cast<message_type>(header.type) != message_type::open_stream) {
        throw protocol::protocol_error("a debug stream connection takes one open_stream and nothing else");
    }
    const auto request = protocol::decode_body<protocol::open_stream>(body, size, "open_stream");
    int memfd = -1;
    try {
        // One answer whether the token is wrong or another process's: it tells a guesser nothing.
        if (!m_runtime.may_open_stream(request.token, c.peer)) {
            throw stream_refused("the stream names no open runtime session of this process");
        }
        memfd = m_hub.open(c.id, c.fd, request.token, request.logical_core, request.capacity);
    } catch (const stream_refused& e) {
        send(c, protocol::make_message(message_type::error, header.request_id,
                                       protocol::error_reply{runtime_api::nrt_status::invalid, e.what()}));
        close_connection(c.id);
        return;
    }
    c.stream_open = true;
    try {
        send(c, protocol::make_message(message_type::stream_opened, header.request_id, protocol::empty_body{}), memfd);
    } catch (...) {
        ::close(memfd);
        throw;
    }
    ::close(memfd);
}

void control_server::send(connection& c, const std::vector<std::uint8_t>& message, int pass_fd) {
    if (protocol::try_send_message(c.fd, message, pass_fd) == protocol::send_result::would_block) {
        // A client that does not read its replies must not stall everyone else.
        throw protocol::connection_error("the client does not read its replies");
    }
}

void control_server::drop(connection& c, const std::string& reason) {
    m_log(fmt::format("dropping client {} (pid {}): {}", c.id, c.peer.pid, reason));
    try {
        send(c, protocol::make_message(message_type::error, 0,
                                       protocol::error_reply{runtime_api::nrt_status::invalid, reason}));
    } catch (const protocol::connection_error&) {}
    close_connection(c.id);
}

void control_server::close_connection(std::uint64_t id) {
    const auto it = m_connections.find(id);
    if (it == m_connections.end()) return;
    auto& c = *it->second;
    ::epoll_ctl(m_epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
    if (c.role == peer_role::runtime && c.greeted) m_runtime.closed(id);
    if (c.stream_open) m_hub.close(id);
    m_census.remove(c.peer);
    ::close(c.fd);
    m_connections.erase(it);
    resume_accepting(); // a descriptor is free again
}

void control_server::settle_runtime_hangups() {
    std::vector<std::uint64_t> pending;
    for (const auto& [id, c] : m_connections) {
        if (c->role != peer_role::runtime) continue;
        pollfd p{c->fd, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) pending.push_back(id);
    }
    for (const auto id : pending) {
        if (const auto it = m_connections.find(id); it != m_connections.end()) serve(*it->second, messages_per_turn);
    }
}

void control_server::drain_deferred() {
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> replies;
    {
        std::lock_guard lock(m_deferred_mutex);
        replies.swap(m_deferred);
    }
    for (auto& [id, message] : replies) {
        const auto it = m_connections.find(id);
        if (it == m_connections.end()) continue; // the client left before its execution ended
        try {
            send(*it->second, message);
        } catch (const protocol::connection_error&) {
            close_connection(id);
        }
    }
}

void control_server::flush_streams() {
    for (const auto id : m_hub.take_ready()) {
        const auto it = m_connections.find(id);
        if (it == m_connections.end()) continue;
        watch_writable(*it->second, m_hub.flush(id));
    }
}

void control_server::watch_writable(connection& c, bool on) {
    if (c.watching_writable == on) return;
    epoll_event e{};
    e.events = EPOLLIN | (on ? EPOLLOUT : 0u);
    e.data.u64 = c.id;
    ::epoll_ctl(m_epoll_fd, EPOLL_CTL_MOD, c.fd, &e);
    c.watching_writable = on;
}

} // namespace neuron::control
