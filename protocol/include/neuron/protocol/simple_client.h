#pragma once

// A one-request-at-a-time client of the control channel, for neuron-emu ctl
// and test harnesses.

#include "neuron/protocol/messages.h"
#include "neuron/protocol/refusal.h"
#include "neuron/protocol/seqpacket.h"

#include <string>
#include <unistd.h>

namespace neuron::protocol {

// The emulator refused a request: the NRT_STATUS it gave and its message.
class request_refused : public std::runtime_error {
public:
    request_refused(std::uint32_t code, const std::string& message) : std::runtime_error(message), m_code(code) {}
    std::uint32_t code() const { return m_code; }

private:
    std::uint32_t m_code;
};

class simple_client {
public:
    // Connects and says hello. Throws connection_error or request_refused;
    // connection_error too when an answer takes longer than
    // `answer_timeout_ms` (-1: wait for ever).
    simple_client(const std::string& path, peer_role role, const std::string& label, int answer_timeout_ms = -1)
            : m_fd(connect_seqpacket(path)), m_answer_timeout_ms(answer_timeout_ms) {
        try {
            m_server = call<hello_ok>(message_type::hello, hello{role, static_cast<std::uint32_t>(::getpid()), label},
                                      message_type::hello_ok);
        } catch (const connection_error&) {
            const auto refusal = waiting_refusal(m_fd);
            ::close(m_fd);
            if (refusal) throw request_refused(refusal->code, refusal->message);
            throw;
        } catch (...) {
            ::close(m_fd);
            throw;
        }
    }
    ~simple_client() { ::close(m_fd); }
    simple_client(const simple_client&) = delete;
    simple_client& operator=(const simple_client&) = delete;

    int fd() const { return m_fd; }
    const hello_ok& server() const { return m_server; }

    // Sends a request and decodes its reply as Reply (expected type `expected`).
    template <typename Reply, typename Body>
    Reply call(message_type type, const Body& body, message_type expected, int* passed_fd = nullptr) {
        const auto id = m_next_id++;
        send_message(m_fd, make_message(type, id, body));
        for (;;) {
            auto message = receive_message(m_fd, m_answer_timeout_ms);
            if (!message) {
                throw connection_error("no answer within " + std::to_string(m_answer_timeout_ms) + " ms");
            }
            const auto header = decode_header(message->bytes.data(), message->bytes.size());
            const auto* payload = message->bytes.data() + header_size;
            const auto size = message->bytes.size() - header_size;
            if (header.request_id != id && header.request_id != 0) {
                if (message->passed_fd >= 0) ::close(message->passed_fd);
                continue; // not ours
            }
            if (static_cast<message_type>(header.type) == message_type::error) {
                if (message->passed_fd >= 0) ::close(message->passed_fd);
                const auto e = decode_body<error_reply>(payload, size, "error");
                throw request_refused(e.code, e.message);
            }
            if (static_cast<message_type>(header.type) != expected) {
                if (message->passed_fd >= 0) ::close(message->passed_fd);
                throw protocol_error("unexpected reply type " + std::to_string(header.type));
            }
            if (passed_fd != nullptr) {
                *passed_fd = message->passed_fd;
            } else if (message->passed_fd >= 0) {
                ::close(message->passed_fd);
            }
            return decode_body<Reply>(payload, size, "reply");
        }
    }

private:
    int m_fd;
    int m_answer_timeout_ms;
    hello_ok m_server;
    std::uint32_t m_next_id = 1;
};

} // namespace neuron::protocol
