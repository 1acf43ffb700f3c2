#pragma once

#include "neuron/control/control_service.h"
#include "neuron/control/debug_stream_hub.h"
#include "neuron/control/runtime_service.h"

#include <sys/types.h>

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

struct control_options {
    std::string path = default_control_path;
    mode_t mode = 0600;
    std::string driver_release; // shown in the status report
};

// The control channel: a unix SOCK_SEQPACKET socket served by one I/O
// thread (epoll). Each connection says in its hello what it is: a runtime
// (one session; closing the connection releases everything it held), a
// control client, or a debug stream. Requests go into the model through
// simulation::call; execution replies and debug events come back from the
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
    void accept_connections();
    void serve(connection& c);
    void dispatch(connection& c, const std::vector<std::uint8_t>& message, int passed_fd);
    void open_stream(connection& c, const protocol::frame_header& header, const std::uint8_t* body, std::size_t size);
    void send(connection& c, const std::vector<std::uint8_t>& message, int pass_fd = -1);
    void drop(connection& c, const std::string& reason);
    void close_connection(std::uint64_t id);
    void drain_deferred();
    void settle_runtime_hangups();
    void flush_streams();
    void watch_writable(connection& c, bool on);
    void wake();

    model::simulation& m_sim;
    control_options m_options;
    debug_stream_hub m_hub;
    runtime_service m_runtime;
    control_service m_control;

    int m_listen_fd = -1;
    int m_epoll_fd = -1;
    int m_wake_fd = -1;
    int m_stop_fd = -1;
    std::map<std::uint64_t, std::unique_ptr<connection>> m_connections;
    std::uint64_t m_next_connection = 1;

    std::mutex m_deferred_mutex;
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> m_deferred;

    std::mutex m_stop_mutex;
    std::thread m_thread;
};

} // namespace neuron::control
