#pragma once

#include "neuron/control/debug_stream_hub.h"
#include "neuron/control/loaded_model.h"
#include "neuron/control/logical_cores.h"
#include "neuron/model/owner_id.h"
#include "neuron/protocol/messages.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neuron::model {
class simulation;
}

namespace neuron::control {

// A request that fails: the NRT_STATUS the runtime returns and why.
class request_error : public std::runtime_error {
public:
    request_error(std::uint32_t status, const std::string& message) : std::runtime_error(message), m_status(status) {}
    std::uint32_t status() const { return m_status; }

private:
    std::uint32_t m_status;
};

struct session_summary {
    std::uint64_t token = 0;
    model::owner_id owner = 0;
    std::uint32_t pid = 0;
    std::string label;
    std::uint32_t lnc = 1;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::vector<std::uint32_t> models;
};

// Replies that come later (an execution finishing in simulated time) go out
// through this, from the kernel thread.
using deferred_reply = std::function<void(std::uint64_t connection, std::vector<std::uint8_t> message)>;

// The way to deferred_reply for callbacks queued in the model, which may
// outlive the service: once closed, what they send goes nowhere.
class reply_channel {
public:
    explicit reply_channel(deferred_reply send) : m_send(std::move(send)) {}
    void send(std::uint64_t connection, std::vector<std::uint8_t> message) {
        std::lock_guard lock(m_mutex);
        if (m_send) m_send(connection, std::move(message));
    }
    // After this returns, no send is running or will reach deferred_reply.
    void close() {
        std::lock_guard lock(m_mutex);
        m_send = nullptr;
    }

private:
    std::mutex m_mutex;
    deferred_reply m_send;
};

// Serves libnrt shims: one runtime session per connection, owning logical
// cores exclusively, allocating memory, loading emulated models and running
// them on the model. Everything a session holds is released when its
// connection closes, however the process ended (driver-sysfs.md §3: the
// datastore is aggregated at release). I/O thread only.
class runtime_service {
public:
    runtime_service(model::simulation& sim, debug_stream_hub& hub, deferred_reply reply_later);
    ~runtime_service();
    runtime_service(const runtime_service&) = delete;
    runtime_service& operator=(const runtime_service&) = delete;

    // Executions still running in the model reply nowhere from now on.
    void stop_deferred_replies();

    // The reply, or nothing when it will come through reply_later.
    std::optional<std::vector<std::uint8_t>> handle(std::uint64_t connection, std::uint32_t pid, const std::string& label,
                                                    const protocol::frame_header& header, const std::uint8_t* body,
                                                    std::size_t size);
    void closed(std::uint64_t connection);

    std::vector<session_summary> sessions() const;
    // The session a debug stream connection names, for the hub.
    bool has_session(std::uint64_t token) const;

private:
    struct session {
        std::uint64_t token = 0;
        model::owner_id owner = 0;
        std::uint32_t pid = 0;
        std::string label;
        logical_cores cores;
        std::uint32_t first = 0;
        std::uint32_t count = 0;
        // Shared with executions still running in the model after an unload.
        std::map<std::uint32_t, std::shared_ptr<loaded_model>> models;
        bool owns(std::uint32_t logical) const { return logical >= first && logical < first + count; }
    };

    session& session_of(std::uint64_t connection);
    std::vector<std::uint8_t> open_session(std::uint64_t connection, std::uint32_t pid, const std::string& label,
                                           std::uint32_t request_id, const protocol::open_session& request);
    std::vector<std::uint8_t> allocate(session& s, std::uint32_t request_id, const protocol::allocate& request);
    std::vector<std::uint8_t> free_memory(session& s, std::uint32_t request_id, const protocol::free_memory& request);
    std::vector<std::uint8_t> load(session& s, std::uint32_t request_id, const protocol::load_model& request);
    std::vector<std::uint8_t> unload(session& s, std::uint32_t request_id, const protocol::unload_model& request);
    void execute(std::uint64_t connection, session& s, std::uint32_t request_id, const protocol::execute& request);
    std::vector<std::uint32_t> choose_cores(const logical_cores& map, const protocol::open_session& request);
    void record_failure(session& s, std::uint32_t logical, std::uint32_t status);

    model::simulation& m_sim;
    debug_stream_hub& m_hub;
    std::shared_ptr<reply_channel> m_reply_later;
    std::map<std::uint64_t, std::unique_ptr<session>> m_sessions; // by connection
    std::uint64_t m_token_salt;
    std::uint64_t m_next_token = 1;
    std::uint32_t m_next_model = 1;
};

} // namespace neuron::control
