#pragma once

// One client connection of the control-server fuzzer: whole datagrams out
// (with any number of descriptors attached), whole datagrams in, and a
// deadline on both, so a server that stops reading or answering is reported
// as a finding instead of hanging the fuzzer.

#include "neuron/protocol/seqpacket.h"

#include <optional>
#include <string>
#include <vector>

namespace neuron::fuzz {

// How long the server may take to answer one request or to take one message;
// shorter than libFuzzer's per-input timeout (10 s in scripts/test's bounded
// run), so that the report names the request left unanswered.
inline constexpr int answer_deadline_ms = 5'000;

// Reports what broke, removes the directory given to remove_on_finding (the
// server's socket would otherwise be left in /tmp after every finding) and
// aborts, so libFuzzer saves the input.
[[noreturn]] void finding(const std::string& what);
void remove_on_finding(const std::string& directory);

class control_peer {
public:
    explicit control_peer(const std::string& path);
    // A connection another process opened (-1: none, a closed peer).
    explicit control_peer(int connected_fd) : m_fd(connected_fd) {}
    ~control_peer();
    control_peer(const control_peer&) = delete;
    control_peer& operator=(const control_peer&) = delete;

    // False once the server has closed the connection (or we did).
    bool open() const { return m_fd >= 0; }

    // Sends one datagram; false when the connection is (or turns out) closed.
    bool send(const std::vector<std::uint8_t>& bytes, const std::vector<int>& descriptors = {});

    // The next datagram, or nothing once the connection has ended. A server
    // that sends nothing within the deadline is a finding; `waiting_for`
    // names the awaited answer in the report.
    std::optional<protocol::received_message> receive(const std::string& waiting_for);

    void close();

private:
    int m_fd;
};

} // namespace neuron::fuzz
