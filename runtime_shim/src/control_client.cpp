#include "control_client.h"

#include "neuron/protocol/refusal.h"

#include <cstdlib>
#include <unistd.h>

namespace neuron::shim {

using protocol::message_type;

std::string control_path() {
    const char* path = std::getenv("NEURON_EMU_CONTROL");
    return path != nullptr && *path != '\0' ? std::string(path) : std::string("/run/neuron-emu/control.sock");
}

control_client::control_client(const std::string& path, protocol::peer_role role, const std::string& label) {
    m_fd = protocol::connect_seqpacket(path);
    try {
        const auto r =
            request(message_type::hello, protocol::hello{role, static_cast<std::uint32_t>(::getpid()), label},
                    message_type::hello_ok);
        m_server = decode<protocol::hello_ok>(r, "hello_ok");
    } catch (const protocol::connection_error&) {
        const auto refusal = protocol::waiting_refusal(m_fd);
        ::close(m_fd);
        if (refusal) throw request_failed(refusal->code, refusal->message);
        throw;
    } catch (...) {
        ::close(m_fd);
        throw;
    }
}

control_client::~control_client() { ::close(m_fd); }

std::uint32_t control_client::next_id() {
    std::lock_guard lock(m_mutex);
    const auto id = m_next_id++;
    m_waiting[id] = std::nullopt;
    return id;
}

void control_client::send(const std::vector<std::uint8_t>& message) {
    std::lock_guard lock(m_send_mutex);
    protocol::send_message(m_fd, message);
}

reply control_client::wait_for(std::uint32_t id) {
    std::unique_lock lock(m_mutex);
    for (;;) {
        auto& slot = m_waiting[id];
        if (slot) {
            auto r = std::move(*slot);
            m_waiting.erase(id);
            return r;
        }
        if (m_broken) {
            m_waiting.erase(id);
            throw protocol::connection_error(m_broken_reason);
        }
        if (m_reading) {
            m_arrived.wait(lock);
            continue;
        }
        m_reading = true; // this thread reads for everyone until its own reply comes
        lock.unlock();
        std::optional<protocol::received_message> message;
        std::string failure;
        try {
            message = protocol::receive_message(m_fd, -1);
        } catch (const protocol::connection_error& e) {
            failure = e.what();
        }
        lock.lock();
        m_reading = false;
        if (!message) {
            m_broken = true;
            m_broken_reason = failure.empty() ? "the emulator closed the connection" : failure;
        } else {
            reply r;
            try {
                r.header = protocol::decode_header(message->bytes.data(), message->bytes.size());
            } catch (const protocol::protocol_error& e) {
                m_broken = true;
                m_broken_reason = e.what();
            }
            if (!m_broken) {
                r.bytes = std::move(message->bytes);
                r.passed_fd = message->passed_fd;
                if (r.header.request_id == 0 && r.header.type == static_cast<std::uint16_t>(message_type::error)) {
                    // The server refuses the connection itself and closes it: every waiting request hears why.
                    if (r.passed_fd >= 0) ::close(r.passed_fd);
                    r.passed_fd = -1;
                    for (auto& [waiting_id, waiting] : m_waiting) {
                        if (!waiting) waiting = r;
                    }
                } else if (const auto it = m_waiting.find(r.header.request_id); it != m_waiting.end()) {
                    it->second = std::move(r);
                } else if (r.passed_fd >= 0) {
                    ::close(r.passed_fd); // nobody asked for it
                }
            }
        }
        m_arrived.notify_all();
    }
}

reply control_client::check(reply r, message_type expected) {
    const auto type = static_cast<message_type>(r.header.type);
    if (type == message_type::error) {
        const auto e = decode<protocol::error_reply>(r, "error");
        throw request_failed(e.code, e.message);
    }
    if (type != expected) {
        if (r.passed_fd >= 0) ::close(r.passed_fd);
        throw protocol::protocol_error("the emulator answered with message type " + std::to_string(r.header.type) +
                                       ", expected " + std::to_string(static_cast<int>(expected)));
    }
    return r;
}

} // namespace neuron::shim
