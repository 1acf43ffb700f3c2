#include "neuron/control/runtime_service.h"

#include "runtime_replies.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/control/instance_description.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/logical_cores.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/random.h>

namespace neuron::control {
namespace {

using protocol::message_type;
using replies::answering;
using replies::error_message;
namespace nrt = model::nrt_status;

template <typename Body>
Body decode(const std::uint8_t* body, std::size_t size, const char* name) {
    return protocol::decode_body<Body>(body, size, name);
}

model::core_selection selection_of(protocol::core_selection s) {
    switch (s) {
    case protocol::core_selection::all_free: return model::core_selection::all_free;
    case protocol::core_selection::range: return model::core_selection::range;
    case protocol::core_selection::count: return model::core_selection::count;
    }
    throw protocol::protocol_error(fmt::format("core selection {} is not one the protocol knows", static_cast<int>(s)));
}

model::collective_kind collective_kind_of(protocol::collective_kind k) {
    switch (k) {
    case protocol::collective_kind::barrier: return model::collective_kind::barrier;
    case protocol::collective_kind::all_gather: return model::collective_kind::all_gather;
    case protocol::collective_kind::send_receive: return model::collective_kind::send_receive;
    }
    throw protocol::protocol_error(
        fmt::format("collective kind {} is not one the protocol knows", static_cast<int>(k)));
}

// A session's token, from the kernel's CSPRNG: knowing one's own says
// nothing of another's.
std::uint64_t random_token() {
    std::uint64_t token = 0;
    auto* at = reinterpret_cast<std::uint8_t*>(&token);
    std::size_t got = 0;
    while (got < sizeof(token)) {
        const auto n = ::getrandom(at + got, sizeof(token) - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw request_error(nrt::failure, fmt::format("getrandom failed: {}", std::strerror(errno)));
        got += static_cast<std::size_t>(n);
    }
    return token;
}

} // namespace

runtime_service::runtime_service(model::api& model, debug_stream_hub& hub, deferred_reply reply_later)
        : m_model(model), m_hub(hub), m_reply_later(std::make_shared<reply_channel>(std::move(reply_later))) {}

runtime_service::~runtime_service() { stop_deferred_replies(); }

void runtime_service::stop_deferred_replies() { m_reply_later->close(); }

runtime_service::session& runtime_service::session_of(std::uint64_t connection) {
    const auto it = m_sessions.find(connection);
    if (it == m_sessions.end()) throw request_error(nrt::invalid, "no runtime session: nrt_init has not succeeded");
    return it->second;
}

bool runtime_service::may_open_stream(std::uint64_t token, const peer_credentials& peer) const {
    for (const auto& [connection, s] : m_sessions) {
        if (s.token == token) return s.pid == peer.pid && s.uid == peer.uid;
    }
    return false;
}

std::optional<std::vector<std::uint8_t>> runtime_service::handle(std::uint64_t connection, const peer_credentials& peer,
                                                                 const std::string& label,
                                                                 const protocol::frame_header& header,
                                                                 const std::uint8_t* body, std::size_t size) {
    const auto id = header.request_id;
    const auto ok = [id] { return protocol::make_message(message_type::ok, id, protocol::empty_body{}); };
    return answering(id, [&]() -> std::optional<std::vector<std::uint8_t>> {
        switch (static_cast<message_type>(header.type)) {
        case message_type::describe_instance:
            decode<protocol::empty_body>(body, size, "describe_instance");
            return protocol::make_message(message_type::instance_description, id,
                                          describe(m_model.published().instance()));
        case message_type::open_session:
            return open_session(connection, peer, label, id,
                                decode<protocol::open_session>(body, size, "open_session"));
        case message_type::allocate:
            return allocate(session_of(connection), id, decode<protocol::allocate>(body, size, "allocate"));
        case message_type::free_memory: {
            const auto& s = session_of(connection);
            m_model.free(s.owner, decode<protocol::free_memory>(body, size, "free_memory").id);
            return ok();
        }
        case message_type::model_piece:
            session_of(connection);
            stage(connection, decode<protocol::model_piece>(body, size, "model_piece"));
            return ok();
        case message_type::load_model: {
            auto request = decode<protocol::load_model>(body, size, "load_model");
            return load(connection, session_of(connection), id, request);
        }
        case message_type::unload_model: {
            const auto& s = session_of(connection);
            m_model.unload(s.owner, decode<protocol::unload_model>(body, size, "unload_model").model_id);
            return ok();
        }
        case message_type::execute:
            execute(connection, session_of(connection), id, decode<protocol::execute>(body, size, "execute"));
            return std::nullopt;
        case message_type::join_collective:
            join_collective(connection, session_of(connection), id,
                            decode<protocol::join_collective>(body, size, "join_collective"));
            return std::nullopt;
        case message_type::read_profile: {
            auto request = decode<protocol::read_profile>(body, size, "read_profile");
            return read_profile(connection, session_of(connection), id, std::move(request));
        }
        case message_type::drop_profiles:
            session_of(connection)
                .profiles->drop(decode<protocol::drop_profiles>(body, size, "drop_profiles").profile_ids);
            return ok();
        case message_type::close_session:
            decode<protocol::empty_body>(body, size, "close_session");
            closed(connection);
            return ok();
        default: throw protocol::protocol_error(fmt::format("message type {} is not a runtime request", header.type));
        }
    });
}

std::vector<std::uint8_t> runtime_service::open_session(std::uint64_t connection, const peer_credentials& peer,
                                                        const std::string& label, std::uint32_t request_id,
                                                        const protocol::open_session& request) {
    if (m_sessions.contains(connection))
        throw request_error(nrt::invalid, "this process already has a runtime session");
    model::session_request wanted;
    wanted.label = label;
    wanted.pid = peer.pid;
    wanted.lnc = request.lnc;
    wanted.selection = selection_of(request.selection);
    wanted.first = request.first;
    wanted.count = request.count;
    const auto grant = m_model.open_session(wanted);
    const session s{random_token(), grant.owner, peer.pid, peer.uid, label, std::make_shared<profile_store>(),
                    grant.lnc};
    m_hub.assign(s.token, model::logical_cores(m_model.published().instance(), grant.lnc), grant.first, grant.count);
    m_sessions[connection] = s;
    return protocol::make_message(message_type::session_opened, request_id,
                                  protocol::session_opened{s.token, grant.lnc, grant.first, grant.count});
}

std::vector<std::uint8_t> runtime_service::allocate(const session& s, std::uint32_t request_id,
                                                    const protocol::allocate& request) {
    const auto where =
        request.location == protocol::memory_location::host ? model::mem_location::host : model::mem_location::device;
    const auto id = m_model.allocate(s.owner, request.logical_core, where, request.mem_type, request.size);
    return protocol::make_message(message_type::allocated, request_id, protocol::allocated{id});
}

void runtime_service::execute(std::uint64_t connection, const session& s, std::uint32_t request_id,
                              const protocol::execute& request) {
    // The model refuses a timeout beyond its limit; beyond int64 it is past that limit too.
    const auto timeout_ns = std::min<std::uint64_t>(request.timeout_ns, INT64_MAX);
    const auto requested_ns = m_model.published().clock().now_ns();
    m_model.execute(
        s.owner, request.model_id, request.repeat,
        [replies = m_reply_later, connection, request_id, profiles = s.profiles, latencies = s.latencies,
         requested_ns](const model::execution_outcome& o) {
            // One entry per execution, as the tools count them: a repeated
            // request's time shared by the repetitions that ran.
            for (std::uint32_t i = 0; i < o.completed && i < latency_log::capacity; ++i) {
                latencies->add({o.ended_ns, (o.ended_ns - std::min(o.ended_ns, requested_ns)) / o.completed,
                                o.activity.duration_ps / 1000 / o.completed});
            }
            const auto dma_engine = o.fault ? o.fault->dma_engine : 0u;
            const auto profile_id = o.profile ? profiles->keep(o.profile) : 0u;
            replies->send(connection,
                          protocol::make_message(message_type::executed, request_id,
                                                 protocol::executed{o.status, o.completed, dma_engine, o.ended_ns,
                                                                    o.activity.duration_ps / 1000, profile_id}));
        },
        std::chrono::nanoseconds(static_cast<std::int64_t>(timeout_ns)), request.profile);
}

namespace {

// A piece of the session file `request` names, as its reply; what the store
// refuses, as the runtime's status.
std::vector<std::uint8_t> profile_piece(profile_store& profiles, std::uint32_t request_id,
                                        const protocol::read_profile& request, bool building) {
    try {
        const auto most = protocol::max_profile_chunk_bytes;
        auto piece = building ? profiles.finish_read(request.profile_ids, request.offset, most)
                              : profiles.read(request.profile_ids, request.offset, most);
        return protocol::make_message(message_type::profile_data, request_id,
                                      protocol::profile_data{piece.total_bytes, std::move(piece.bytes)});
    } catch (const std::invalid_argument& e) {
        return error_message(request_id, nrt::invalid, e.what());
    } catch (const profile_room_error& e) {
        return error_message(request_id, nrt::resource, e.what());
    }
}

} // namespace

std::optional<std::vector<std::uint8_t>> runtime_service::read_profile(std::uint64_t connection, const session& s,
                                                                       std::uint32_t request_id,
                                                                       protocol::read_profile request) {
    bool built = false;
    try {
        built = s.profiles->begin_read(request.profile_ids);
    } catch (const std::invalid_argument& e) {
        throw request_error(nrt::invalid, e.what());
    } catch (const profile_room_error& e) {
        throw request_error(nrt::resource, e.what());
    }
    if (built) return profile_piece(*s.profiles, request_id, request, false);
    // Encoding the profiles takes time in proportion to them: other clients do not wait for it.
    m_profile_builds.post([replies = m_reply_later, connection, request_id, profiles = s.profiles,
                           request = std::move(request)]() mutable {
        std::vector<std::uint8_t> reply;
        try {
            reply = profile_piece(*profiles, request_id, request, true);
        } catch (const std::exception& e) { // out of host memory
            reply = error_message(request_id, nrt::failure, e.what());
        }
        // Let go first: once answered, a closed session's profiles are given back.
        profiles.reset();
        replies->send(connection, std::move(reply));
    });
    return std::nullopt;
}

void runtime_service::join_collective(std::uint64_t connection, const session& s, std::uint32_t request_id,
                                      const protocol::join_collective& request) {
    model::collective_arrival arrival;
    arrival.user = s.uid; // the kernel's word for who the process is (SO_PEERCRED), not the client's
    arrival.group = request.group;
    arrival.kind = collective_kind_of(request.kind);
    arrival.rank = request.rank;
    arrival.ranks = request.ranks;
    arrival.peer_core = request.peer_core;
    arrival.transfer_bytes = request.transfer_bytes;
    arrival.offset = request.offset;
    arrival.contribution.assign(request.contribution.begin(), request.contribution.end());
    arrival.timeout =
        std::chrono::nanoseconds(static_cast<std::int64_t>(std::min<std::uint64_t>(request.timeout_ns, INT64_MAX)));
    m_model.join_collective(
        s.owner, request.logical_core, std::move(arrival),
        [replies = m_reply_later, connection, request_id](const model::collective_outcome& o) {
            if (o.status != nrt::success) {
                replies->send(connection, error_message(request_id, o.status, o.message));
                return;
            }
            replies->send(connection,
                          protocol::make_message(message_type::collective_joined, request_id,
                                                 protocol::collective_joined{{o.gathered.begin(), o.gathered.end()}}));
        });
}

void runtime_service::closed(std::uint64_t connection) {
    const auto it = m_sessions.find(connection);
    if (it == m_sessions.end()) return;
    const auto owner = it->second.owner;
    m_hub.unassign(it->second.token);
    m_sessions.erase(it);
    drop_staged(connection);
    try {
        // Frees its cores and memory and aggregates its datastore into sysfs.
        m_model.close_session(owner);
    } catch (const model::simulation_error&) {
        // Shutting down: the model is gone with everything it held.
    }
}

std::vector<session_process> runtime_service::sessions() const {
    std::vector<session_process> out;
    for (const auto& [connection, s] : m_sessions) out.push_back(s);
    return out;
}

} // namespace neuron::control
