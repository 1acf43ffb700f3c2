#define BOOST_TEST_MODULE shim_control_client
// The shim's connection to the emulator, alone against a fake server that
// refuses it (as the emulator refuses a process or user past its share of
// connections): nrt_init must report the server's reason, whether the
// refusal came before the hello was sent (which then fails with EPIPE) or
// after (compiled in: the library hides it).
#include "control_client.h"

#include "neuron/test_support/temporary_directory.h"

#include <boost/test/unit_test.hpp>

#include <future>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace neuron;
using namespace neuron::protocol;
using namespace neuron::runtime_api;

namespace {

constexpr const char* reason = "process 7 holds 256 connections to the emulator, the most one process may";

// A listening socket whose one client is told `reason` and closed.
struct refusing_server {
    test_support::temporary_directory dir{"shim-control-client"};
    std::string path = dir.path() + "/control.sock";
    int listener = -1;

    refusing_server() {
        const auto address = unix_address(path);
        listener = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        BOOST_TEST_REQUIRE(::bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0);
        BOOST_TEST_REQUIRE(::listen(listener, 4) == 0);
    }
    ~refusing_server() { ::close(listener); }

    void refuse_one() const {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        send_message(fd, make_message(message_type::error, 0, error_reply{nrt_status::resource, reason}));
        ::close(fd);
    }
};

// connect() returns only once the server has refused and closed the
// connection, so the hello meets a closed socket.
refusing_server* g_server = nullptr;
int connect_then_refused(int fd, const sockaddr* address, socklen_t length) {
    const int connected = ::connect(fd, address, length);
    if (connected == 0) g_server->refuse_one();
    return connected;
}

bool refused_with_the_reason(const shim::request_failed& e) {
    BOOST_TEST_INFO(e.what());
    return e.status() == nrt_status::resource && std::string(e.what()) == reason;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_refusal_before_the_hello_is_reported_not_a_broken_pipe) {
    refusing_server server;
    g_server = &server;
    const auto saved = socket_sys();
    socket_sys().connect = connect_then_refused;
    BOOST_CHECK_EXCEPTION(shim::control_client(server.path, peer_role::runtime, "app"), shim::request_failed,
                          refused_with_the_reason);
    socket_sys() = saved;
}

BOOST_AUTO_TEST_CASE(a_refusal_after_the_hello_is_reported_to_the_waiting_request) {
    refusing_server server;
    auto refusing = std::async(std::launch::async, [&] { server.refuse_one(); });
    BOOST_CHECK_EXCEPTION(shim::control_client(server.path, peer_role::runtime, "app"), shim::request_failed,
                          refused_with_the_reason);
    refusing.get();
}
