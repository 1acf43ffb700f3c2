#pragma once

#include "neuron/control/control_service.h"
#include "neuron/control/debug_stream_hub.h"
#include "neuron/control/peer_census.h"
#include "neuron/control/rate_limited_log.h"
#include "neuron/control/runtime_service.h"
#include "neuron/model/runtime/api.h"

#include <sys/epoll.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace neuron::model {
class simulation;
}

namespace neuron::control {

// Where the runtime shim and `neuron-emu ctl` look when NEURON_EMU_CONTROL is unset.
inline constexpr const char* default_control_path = "/run/neuron-emu/control.sock";

// What one client, or many, can hold of the server (README "Limits").
struct control_limits {
    // Connections at once, of every kind; one more is told why and closed.
    // Never more than the descriptor limit allows (less a reserve).
    std::size_t max_connections = 1024;
    // Of those, what one process may hold (a runtime's own connection and a
    // debug stream for each of up to 128 logical cores fit), and what all the
    // processes of one user may, unless it is root or the emulator's user.
    std::size_t max_per_process = 256;
    std::size_t max_per_user = 512;
    // A connection that has not said hello by then is told why and closed.
    std::chrono::milliseconds hello_timeout{10'000};
    // Out of descriptors, accepting pauses this long (or until one closes).
    std::chrono::milliseconds accept_pause{100};
    // Debug-stream buffering in the server, per stream and in total.
    stream_limits streams;
};

struct control_options {
    std::string path = default_control_path;
    mode_t mode = 0600;
    std::string driver_release; // shown in the status report
    control_limits limits;
    rate_limited_log::sink log; // default: stderr
};

// The control channel: a unix SOCK_SEQPACKET socket served by one I/O
// thread (epoll). Each connection says in its hello what it is: a runtime
// (one session; closing the connection releases everything it held), a
// control client, or a debug stream. Requests go into the model through
// its API (model/api.h); execution replies and debug events come back from the
// kernel thread through queues the I/O thread drains. A peer that breaks the
// protocol is told why and disconnected; nothing it held is lost.
class control_server {
public:
    // Binds (clearing a stale socket file; refusing one another server is
    // listening on) and starts serving. Throws model::model_error with the reason.
    control_server(model::simulation& sim, control_options options);
    ~control_server();
    control_server(const control_server&) = delete;
    control_server& operator=(const control_server&) = delete;

    const std::string& path() const { return m_options.path; }
    // Closes every connection (releasing their sessions), stops the thread
    // and removes the socket file. Idempotent.
    void stop();

private:
    struct connection;
    void run();
    void handle_event(const epoll_event& event);
    void accept_connections();
    void pause_accepting(int error);
    void resume_accepting();
    void refuse(int fd, const std::string& reason);
    void close_silent_connections();
    void arm_hello_timer();
    void serve(connection& c, int most); // up to `most` of its messages
    void dispatch(connection& c, const std::vector<std::uint8_t>& message, int passed_fd);
    void answer(connection& c, const protocol::frame_header& header, const std::uint8_t* body, std::size_t size);
    void open_stream(connection& c, const protocol::frame_header& header, const std::uint8_t* body, std::size_t size);
    void send(connection& c, const std::vector<std::uint8_t>& message, int pass_fd = -1);
    void drop(connection& c, const std::string& reason);
    void close_connection(std::uint64_t id);
    void drain_deferred();
    void settle_runtime_hangups();
    void flush_streams();
    void watch_writable(connection& c, bool on);
    void wake();

    model::api m_model;
    control_options m_options;
    rate_limited_log m_log;
    peer_census m_census;
    debug_stream_hub m_hub;
    runtime_service m_runtime;
    control_service m_control;

    int m_listen_fd = -1;
    int m_epoll_fd = -1;
    int m_wake_fd = -1;
    int m_stop_fd = -1;
    int m_accept_timer_fd = -1;
    int m_hello_timer_fd = -1;
    bool m_accept_paused = false;
    bool m_accept_trouble_logged = false;
    std::map<std::uint64_t, std::unique_ptr<connection>> m_connections;
    std::uint64_t m_next_connection = 1;

    std::mutex m_deferred_mutex;
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> m_deferred;

    std::mutex m_stop_mutex;
    std::thread m_thread;
};

} // namespace neuron::control
