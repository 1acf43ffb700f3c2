// A client of the control socket in a process of its own, for the tests of
// what the server does with who a client is (SO_PEERCRED): another process,
// another user. One action, its outcome on stdout as one line:
//
//   peer_probe SOCKET [--uid N] hello ROLE                 ok | refused CODE MESSAGE
//   peer_probe SOCKET [--uid N] hold ROLE COUNT            held COUNT | refused ...; then waits for stdin to close
//   peer_probe SOCKET [--uid N] open-stream TOKEN CORE     ok | refused ...
//   peer_probe SOCKET [--uid N] ctl status|advance|inject-ecc   ok | refused ...
//
// ROLE is runtime, control or debug_stream. --uid drops to that user (and
// its group) before connecting; the test runs as root for that.

#include "neuron/protocol/simple_client.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace neuron::protocol;

namespace {

peer_role role_named(const std::string& name) {
    if (name == "runtime") return peer_role::runtime;
    if (name == "debug_stream") return peer_role::debug_stream;
    return peer_role::control;
}

void ctl(simple_client& c, const std::string& verb) {
    if (verb == "status") {
        c.call<status_report>(message_type::status, empty_body{}, message_type::status_report);
    } else if (verb == "advance") {
        c.call<advanced>(message_type::advance, advance{1000}, message_type::advanced);
    } else {
        c.call<empty_body>(message_type::inject_ecc, inject_ecc{0, "hbm", 1, -1}, message_type::ok);
    }
}

int act(const std::string& socket, const std::vector<std::string>& args) {
    const auto& action = args.at(0);
    if (action == "hold") {
        std::vector<std::unique_ptr<simple_client>> held;
        const auto count = std::stoul(args.at(2));
        for (unsigned long i = 0; i < count; ++i) {
            held.push_back(std::make_unique<simple_client>(socket, role_named(args.at(1)), "probe"));
        }
        std::printf("held %lu\n", count);
        std::fflush(stdout);
        char byte = 0;
        while (::read(STDIN_FILENO, &byte, 1) > 0) {}
        return 0;
    }
    if (action == "hello") {
        simple_client c(socket, role_named(args.at(1)), "probe");
    } else if (action == "open-stream") {
        simple_client c(socket, peer_role::debug_stream, "probe");
        int memfd = -1;
        c.call<empty_body>(message_type::open_stream,
                           open_stream{std::stoull(args.at(1)), static_cast<std::uint32_t>(std::stoul(args.at(2))), 16},
                           message_type::stream_opened, &memfd);
        if (memfd >= 0) ::close(memfd);
    } else {
        simple_client c(socket, peer_role::control, "probe");
        ctl(c, args.at(1));
    }
    std::printf("ok\n");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: peer_probe SOCKET [--uid N] ACTION ARGS...\n");
        return 2;
    }
    const std::string socket = argv[1];
    std::vector<std::string> args(argv + 2, argv + argc);
    if (args.size() >= 2 && args[0] == "--uid") {
        const auto uid = static_cast<uid_t>(std::stoul(args[1]));
        if (::setgid(uid) != 0 || ::setuid(uid) != 0) {
            std::perror("peer_probe: setuid");
            return 2;
        }
        args.erase(args.begin(), args.begin() + 2);
    }
    try {
        return act(socket, args);
    } catch (const request_refused& e) {
        std::printf("refused %u %s\n", e.code(), e.what());
    } catch (const std::exception& e) {
        std::printf("failed %s\n", e.what());
    }
    return 1;
}
