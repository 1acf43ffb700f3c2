#pragma once

#include "neuron/control/background_jobs.h"
#include "neuron/control/debug_stream_hub.h"
#include "neuron/control/latency_log.h"
#include "neuron/control/model_file.h"
#include "neuron/control/neff_uploads.h"
#include "neuron/control/peer_census.h"
#include "neuron/control/profile_store.h"
#include "neuron/model/driver/owner_id.h"
#include "neuron/model/runtime/api.h"
#include "neuron/protocol/messages.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace neuron::control {

// A request that fails: the NRT_STATUS the runtime returns and why.
class request_error : public std::runtime_error {
public:
    request_error(std::uint32_t status, const std::string& message) : std::runtime_error(message), m_status(status) {}
    std::uint32_t status() const { return m_status; }

private:
    std::uint32_t m_status;
};

// The process behind a runtime session of the model.
struct session_process {
    std::uint64_t token = 0; // names the session to its debug streams (unguessable)
    model::owner_id owner = 0;
    std::uint32_t pid = 0; // the kernel's word for the process (SO_PEERCRED), as is uid
    std::uint32_t uid = 0;
    std::string label;
    std::shared_ptr<profile_store> profiles; // what its profiled executions recorded
    std::uint32_t lnc = 1;
    std::shared_ptr<latency_log> latencies = std::make_shared<latency_log>();
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

// Serves libnrt shims: one runtime session of the model per connection.
// It decodes requests, parses model files, calls the model's API and
// encodes the answers; the model decides everything else. A session is
// closed when its connection closes, however the process ended. I/O thread
// only.
class runtime_service {
public:
    runtime_service(model::api& model, debug_stream_hub& hub, deferred_reply reply_later);
    ~runtime_service();
    runtime_service(const runtime_service&) = delete;
    runtime_service& operator=(const runtime_service&) = delete;

    // Executions still running in the model reply nowhere from now on.
    void stop_deferred_replies();

    // The reply, or nothing when it will come through reply_later.
    std::optional<std::vector<std::uint8_t>> handle(std::uint64_t connection, const peer_credentials& peer,
                                                    const std::string& label, const protocol::frame_header& header,
                                                    const std::uint8_t* body, std::size_t size);
    void closed(std::uint64_t connection);

    std::vector<session_process> sessions() const;
    // Whether a debug stream connection from `peer` may open a stream of the
    // session `token` names: only the process that owns the session may
    // (events are only pushed to the process that owns the core).
    bool may_open_stream(std::uint64_t token, const peer_credentials& peer) const;

private:
    using session = session_process;

    session& session_of(std::uint64_t connection);
    std::vector<std::uint8_t> open_session(std::uint64_t connection, const peer_credentials& peer,
                                           const std::string& label, std::uint32_t request_id,
                                           const protocol::open_session& request);
    std::vector<std::uint8_t> allocate(const session& s, std::uint32_t request_id, const protocol::allocate& request);
    void stage(std::uint64_t connection, const protocol::model_piece& piece);
    // The reply, or nothing when a NEFF is read in the background (it answers through reply_later).
    std::optional<std::vector<std::uint8_t>> load(std::uint64_t connection, const session& s, std::uint32_t request_id,
                                                  protocol::load_model& request);
    // What a file loaded in the background defines; throws what parsing it does.
    using definer = std::function<model_definition(const std::string& bytes, const neff::stop_test& stopped)>;
    // Reads `bytes` on the background thread and answers the load_model
    // `request_id` through reply_later.
    void read_in_background(std::uint64_t connection, std::uint32_t request_id, model::owner_id owner,
                            std::optional<std::uint32_t> core, std::string bytes, definer define);
    void execute(std::uint64_t connection, const session& s, std::uint32_t request_id,
                 const protocol::execute& request);
    void join_collective(std::uint64_t connection, const session& s, std::uint32_t request_id,
                         const protocol::join_collective& request);
    // The reply, or nothing when the session file is built in the background (it answers through reply_later).
    std::optional<std::vector<std::uint8_t>> read_profile(std::uint64_t connection, const session& s,
                                                          std::uint32_t request_id, protocol::read_profile request);

    model::api& m_model;
    debug_stream_hub& m_hub;
    std::shared_ptr<reply_channel> m_reply_later;
    std::map<std::uint64_t, session> m_sessions; // by connection
    // The connection's NEFF upload, and its NEFFs queued or being read, end.
    void drop_staged(std::uint64_t connection);
    neff_uploads m_uploads{m_background}; // NEFFs arriving in model_pieces, and read on m_background
    background_jobs m_background;         // these two last: they stop before what their jobs use
    background_jobs m_profile_builds;     // session files: they never wait behind a NEFF
};

} // namespace neuron::control
