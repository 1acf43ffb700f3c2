// Figure 5: a control request the size of `ctl status` and its reply,
// against a raw SOCK_SEQPACKET ping-pong moving messages of the same sizes
// with another process, in the same run. Informational: there is no target.

#include "figures.h"
#include "support/measure.h"
#include "support/placement.h"
#include "support/served.h"

#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>

#include <stdexcept>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::bench {
namespace {

using protocol::message_type;

// A ping-pong with a process of its own (as the emulator is one).
samples raw_ping_pong(std::size_t request_bytes, std::size_t reply_bytes, int count) {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
        throw std::runtime_error("socketpair failed");
    const pid_t server = ::fork();
    if (server == 0) {
        ::close(fds[0]);
        std::vector<char> in(request_bytes), out(reply_bytes, 'r');
        for (int i = 0; i < count; ++i) {
            if (::recv(fds[1], in.data(), in.size(), 0) <= 0) break;
            ::send(fds[1], out.data(), out.size(), MSG_NOSIGNAL);
        }
        ::_exit(0);
    }
    ::close(fds[1]); // the server's end: if it dies, recv sees the end
    samples s;
    std::vector<char> request(request_bytes, 'q'), reply(reply_bytes);
    for (int i = 0; i < count; ++i) {
        ssize_t got = 0;
        s.add(time_once([&] {
            ::send(fds[0], request.data(), request.size(), MSG_NOSIGNAL);
            got = ::recv(fds[0], reply.data(), reply.size(), 0);
        }));
        if (got <= 0) {
            ::close(fds[0]);
            ::waitpid(server, nullptr, 0);
            throw std::runtime_error("the raw echo server ended early");
        }
    }
    ::close(fds[0]);
    ::waitpid(server, nullptr, 0);
    return s;
}

} // namespace

void control_round_trip(const context& c) {
    served emulator(c.emulator, serve_options("trn1.2xlarge"));
    protocol::simple_client client(emulator.control_path(), protocol::peer_role::control, "neuron-bench");
    // Everything on one CPU (the raw echo process inherits it): placement is not measured.
    pinned one_cpu(0, {emulator.pid()});
    const int count = c.quick ? 500 : 2000;
    std::size_t reply_size = 0;
    samples ours;
    for (int i = 0; i < 50; ++i) { // warm up
        reply_size = client
                         .call<protocol::status_report>(message_type::status, protocol::empty_body{},
                                                        message_type::status_report)
                         .json.size();
    }
    for (int i = 0; i < count; ++i) {
        ours.add(time_once([&] {
            (void)client.call<protocol::status_report>(message_type::status, protocol::empty_body{},
                                                       message_type::status_report);
        }));
    }
    const auto raw = raw_ping_pong(protocol::header_size, protocol::header_size + 4 + reply_size, count);
    print({"5 control round trip (status) p50", ours.median() / 1e3, raw.median() / 1e3, "us", goal::info, 0,
           fmt::format("every thread on one CPU; p99 ours {:.1f} us, raw {:.1f} us; reply {} bytes (the status JSON of "
                       "trn1.2xlarge)",
                       ours.p99() / 1e3, raw.p99() / 1e3, reply_size)});
    emulator.stop();
}

} // namespace neuron::bench
