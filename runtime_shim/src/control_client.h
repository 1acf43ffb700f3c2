#pragma once

#include "neuron/protocol/messages.h"
#include "neuron/protocol/seqpacket.h"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace neuron::shim {

// The emulator answered a request with an error: its NRT_STATUS and message.
class request_failed : public std::runtime_error {
public:
    request_failed(std::uint32_t status, const std::string& message) : std::runtime_error(message), m_status(status) {}
    std::uint32_t status() const { return m_status; }

private:
    std::uint32_t m_status;
};

struct reply {
    protocol::frame_header header;
    std::vector<std::uint8_t> bytes; // the whole message
    int passed_fd = -1;
    const std::uint8_t* body() const { return bytes.data() + protocol::header_size; }
    std::size_t body_size() const { return bytes.size() - protocol::header_size; }
};

// NEURON_EMU_CONTROL, else /run/neuron-emu/control.sock.
std::string control_path();

// One connection to the emulator's control socket. Several threads may
// wait for replies at once: whichever thread finds no reader reads for all
// and hands each reply to the request with its id.
class control_client {
public:
    // Connects and says hello. Throws protocol::connection_error naming the path.
    control_client(const std::string& path, protocol::peer_role role, const std::string& label);
    ~control_client();
    control_client(const control_client&) = delete;
    control_client& operator=(const control_client&) = delete;

    int fd() const { return m_fd; }
    const protocol::hello_ok& server() const { return m_server; }

    // Sends a request and waits for its reply; an error reply throws
    // request_failed, a reply of another type protocol_error, a lost
    // connection protocol::connection_error.
    template <typename Body>
    reply request(protocol::message_type type, const Body& body, protocol::message_type expected) {
        const auto id = next_id();
        send(protocol::make_message(type, id, body));
        return check(wait_for(id), expected);
    }

    // The same in two halves, so that several requests can be in flight:
    // submit sends and returns the id collect waits for.
    template <typename Body>
    std::uint32_t submit(protocol::message_type type, const Body& body) {
        const auto id = next_id();
        send(protocol::make_message(type, id, body));
        return id;
    }
    reply collect(std::uint32_t id, protocol::message_type expected) { return check(wait_for(id), expected); }

    template <typename Body>
    static Body decode(const reply& r, const char* name) {
        return protocol::decode_body<Body>(r.body(), r.body_size(), name);
    }

private:
    std::uint32_t next_id();
    void send(const std::vector<std::uint8_t>& message);
    reply wait_for(std::uint32_t id);
    static reply check(reply r, protocol::message_type expected);

    int m_fd = -1;
    protocol::hello_ok m_server;
    std::mutex m_send_mutex;
    std::mutex m_mutex;
    std::condition_variable m_arrived;
    std::map<std::uint32_t, std::optional<reply>> m_waiting;
    bool m_reading = false;
    bool m_broken = false;
    std::string m_broken_reason;
    std::uint32_t m_next_id = 1;
};

} // namespace neuron::shim
