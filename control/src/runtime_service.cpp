#include "neuron/control/runtime_service.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/control/instance_description.h"
#include "neuron/control/repeated_execution.h"
#include "neuron/model/errors.h"
#include "neuron/model/nrt_status.h"
#include "neuron/model/platform.h"
#include "neuron/model/simulation.h"

#include <fmt/format.h>

#include <map>
#include <random>

namespace neuron::control {
namespace {

using protocol::message_type;
namespace nrt = model::nrt_status;

std::vector<std::uint8_t> error_message(std::uint32_t request_id, std::uint32_t status, const std::string& text) {
    return protocol::make_message(message_type::error, request_id, protocol::error_reply{status, text});
}

template <typename Body>
Body decode(const std::uint8_t* body, std::size_t size, const char* name) {
    return protocol::decode_body<Body>(body, size, name);
}

std::string owner_label(model::platform& p, model::owner_id owner) {
    for (const auto& o : p.owners().owners()) {
        if (o.id == owner) return o.label;
    }
    return fmt::format("session {}", owner);
}

// Per device, the mask of physical cores the logical cores occupy.
std::map<std::uint32_t, std::uint32_t> device_masks(const logical_cores& map, std::uint32_t first, std::uint32_t count) {
    std::map<std::uint32_t, std::uint32_t> masks;
    for (std::uint32_t l = first; l < first + count; ++l) {
        for (const auto& p : map.physical(l)) masks[p.device] |= 1u << p.core;
    }
    return masks;
}

} // namespace

runtime_service::runtime_service(model::simulation& sim, debug_stream_hub& hub, deferred_reply reply_later)
    : m_sim(sim), m_hub(hub), m_reply_later(std::make_shared<reply_channel>(std::move(reply_later))) {
    std::random_device entropy;
    m_token_salt = (std::uint64_t{entropy()} << 32) | entropy();
}

runtime_service::~runtime_service() { stop_deferred_replies(); }

void runtime_service::stop_deferred_replies() { m_reply_later->close(); }

runtime_service::session& runtime_service::session_of(std::uint64_t connection) {
    const auto it = m_sessions.find(connection);
    if (it == m_sessions.end()) throw request_error(nrt::invalid, "no runtime session: nrt_init has not succeeded");
    return *it->second;
}

bool runtime_service::has_session(std::uint64_t token) const {
    for (const auto& [connection, s] : m_sessions) {
        if (s->token == token) return true;
    }
    return false;
}

std::optional<std::vector<std::uint8_t>> runtime_service::handle(std::uint64_t connection, std::uint32_t pid,
                                                                 const std::string& label,
                                                                 const protocol::frame_header& header,
                                                                 const std::uint8_t* body, std::size_t size) {
    const auto id = header.request_id;
    try {
        switch (static_cast<message_type>(header.type)) {
        case message_type::describe_instance:
            decode<protocol::empty_body>(body, size, "describe_instance");
            return protocol::make_message(message_type::instance_description, id, describe(m_sim.published().instance()));
        case message_type::open_session:
            return open_session(connection, pid, label, id, decode<protocol::open_session>(body, size, "open_session"));
        case message_type::allocate:
            return allocate(session_of(connection), id, decode<protocol::allocate>(body, size, "allocate"));
        case message_type::free_memory:
            return free_memory(session_of(connection), id, decode<protocol::free_memory>(body, size, "free_memory"));
        case message_type::load_model:
            return load(session_of(connection), id, decode<protocol::load_model>(body, size, "load_model"));
        case message_type::unload_model:
            return unload(session_of(connection), id, decode<protocol::unload_model>(body, size, "unload_model"));
        case message_type::execute:
            execute(connection, session_of(connection), id, decode<protocol::execute>(body, size, "execute"));
            return std::nullopt;
        case message_type::close_session:
            decode<protocol::empty_body>(body, size, "close_session");
            closed(connection);
            return protocol::make_message(message_type::ok, id, protocol::empty_body{});
        default:
            throw protocol::protocol_error(fmt::format("message type {} is not a runtime request", header.type));
        }
    } catch (const request_error& e) {
        return error_message(id, e.status(), e.what());
    } catch (const model::resource_busy_error& e) {
        return error_message(id, nrt::resource, e.what());
    } catch (const model::out_of_memory_error& e) {
        return error_message(id, nrt::resource, e.what());
    } catch (const model::simulation_error& e) {
        return error_message(id, nrt::failure, e.what());
    } catch (const model::model_error& e) { // invalid argument, unsupported
        return error_message(id, nrt::invalid, e.what());
    } catch (const common::yaml_error& e) {
        return error_message(id, nrt::invalid, e.what());
    }
}

std::vector<std::uint32_t> runtime_service::choose_cores(const logical_cores& map, const protocol::open_session& request) {
    std::vector<std::uint32_t> wanted;
    switch (request.selection) {
    case protocol::core_selection::all_free:
        for (std::uint32_t l = 0; l < map.total(); ++l) wanted.push_back(l);
        break;
    case protocol::core_selection::range:
        if (request.count == 0) {
            throw request_error(nrt::invalid, "NEURON_RT_VISIBLE_CORES asks for no logical NeuronCore");
        }
        if (request.first >= map.total() || request.count > map.total() - request.first) {
            throw request_error(nrt::invalid,
                                fmt::format("NEURON_RT_VISIBLE_CORES asks for logical NeuronCores {}-{}, but {} with "
                                            "LNC={} has 0-{}",
                                            request.first, std::uint64_t{request.first} + request.count - 1,
                                            m_sim.published().instance().name, map.lnc(), map.total() - 1));
        }
        for (std::uint32_t l = request.first; l < request.first + request.count; ++l) wanted.push_back(l);
        break;
    case protocol::core_selection::count:
        if (request.count == 0 || request.count > map.total()) {
            throw request_error(nrt::invalid, fmt::format("NEURON_RT_NUM_CORES={}: {} has {} logical NeuronCores",
                                                          request.count, m_sim.published().instance().name, map.total()));
        }
        break; // chosen on the kernel thread, where ownership is known
    }
    return wanted;
}

std::vector<std::uint8_t> runtime_service::open_session(std::uint64_t connection, std::uint32_t pid,
                                                        const std::string& label, std::uint32_t request_id,
                                                        const protocol::open_session& request) {
    if (m_sessions.contains(connection)) throw request_error(nrt::invalid, "this process already has a runtime session");
    const logical_cores map(m_sim.published().instance(), request.lnc);
    auto wanted = choose_cores(map, request);
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    const auto owner = m_sim.call([&](model::platform& p) {
        const auto busy = [&](std::uint32_t logical) -> std::optional<model::owner_id> {
            for (const auto& c : map.physical(logical)) {
                if (const auto o = p.owners().core_owner(c.device, c.core)) return o;
            }
            return std::nullopt;
        };
        if (request.selection == protocol::core_selection::count) {
            std::uint32_t run = 0;
            for (std::uint32_t l = 0; l < map.total() && run < request.count; ++l) {
                run = busy(l) ? 0 : run + 1;
                if (run == request.count) {
                    for (std::uint32_t k = l + 1 - run; k <= l; ++k) wanted.push_back(k);
                }
            }
            if (wanted.empty()) {
                throw model::resource_busy_error(fmt::format(
                    "NEURON_RT_NUM_CORES={}: no {} free NeuronCores in a row (others are in use)", request.count,
                    request.count));
            }
        }
        for (const auto l : wanted) {
            if (const auto o = busy(l)) {
                throw model::resource_busy_error(
                    fmt::format("logical NeuronCore {} is in use by {}", l, owner_label(p, *o)));
            }
        }
        first = wanted.front();
        count = static_cast<std::uint32_t>(wanted.size());
        const auto owner = p.owners().open(label.empty() ? fmt::format("pid {}", pid) : label);
        for (const auto& [device, mask] : device_masks(map, first, count)) {
            p.owners().acquire_cores(owner, device, mask);
            p.owners().attach(owner, device);
            // The runtime resets the cores it takes (reset_req_count +1 each);
            // the cores are usable at once.
            p.device(device).resets().request_core_reset(mask);
        }
        return owner;
    });
    auto s = std::make_unique<session>(session{m_token_salt ^ (m_next_token++ * 0x9E3779B97F4A7C15ull), owner, pid,
                                               label, map, first, count, {}});
    m_hub.assign(s->token, map, first, count);
    const protocol::session_opened reply{s->token, map.lnc(), first, count};
    m_sessions[connection] = std::move(s);
    return protocol::make_message(message_type::session_opened, request_id, reply);
}

std::vector<std::uint8_t> runtime_service::allocate(session& s, std::uint32_t request_id, const protocol::allocate& request) {
    if (!s.owns(request.logical_core)) {
        throw request_error(nrt::invalid, fmt::format("logical NeuronCore {} is not owned by this process", request.logical_core));
    }
    const auto where = request.location == protocol::memory_location::host ? model::mem_location::host : model::mem_location::device;
    const auto at = s.cores.first_physical(request.logical_core);
    const auto id = m_sim.call([&](model::platform& p) {
        return p.owners().allocate(s.owner, at.device, at.core, where, request.mem_type, request.size);
    });
    return protocol::make_message(message_type::allocated, request_id, protocol::allocated{id});
}

std::vector<std::uint8_t> runtime_service::free_memory(session& s, std::uint32_t request_id, const protocol::free_memory& request) {
    m_sim.call([&](model::platform& p) { p.owners().free(s.owner, request.id); });
    return protocol::make_message(message_type::ok, request_id, protocol::empty_body{});
}

void runtime_service::record_failure(session& s, std::uint32_t logical, std::uint32_t status) {
    const auto counter = model::status_counter(status);
    if (!counter) return;
    const auto at = s.cores.first_physical(logical);
    m_sim.call([&](model::platform& p) { p.owners().record(s.owner, at.device, at.core, *counter, 1); });
}

std::vector<std::uint8_t> runtime_service::load(session& s, std::uint32_t request_id, const protocol::load_model& request) {
    std::uint32_t logical = s.first;
    if (request.logical_core >= 0) {
        logical = static_cast<std::uint32_t>(request.logical_core);
        if (!s.owns(logical)) {
            throw request_error(nrt::invalid, fmt::format("logical NeuronCore {} is not owned by this process", logical));
        }
    } else {
        for (std::uint32_t l = s.first; l < s.first + s.count; ++l) { // the first core without a model
            bool used = false;
            for (const auto& [id, m] : s.models) used = used || m->logical_core() == l;
            if (!used) {
                logical = l;
                break;
            }
        }
    }
    if (!looks_like_model_file(request.bytes)) {
        record_failure(s, logical, nrt::invalid);
        throw request_error(nrt::invalid, "not an emulated model file (a NEFF cannot run on the emulator; see "
                                          "runtime_shim/MODEL_FILE.md)");
    }
    model_definition definition;
    try {
        definition = parse_model_file(request.bytes, "model");
        (void)definition.duration_on(m_sim.published().spec());
    } catch (const std::exception&) {
        record_failure(s, logical, nrt::invalid);
        throw;
    }
    auto loaded = std::make_shared<loaded_model>(m_next_model++, std::move(definition), logical);
    const auto at = s.cores.first_physical(logical);
    m_sim.call([&](model::platform& p) {
        try {
            for (const auto& m : loaded->definition().memory) {
                loaded->allocations().push_back(
                    p.owners().allocate(s.owner, at.device, at.core, m.where, static_cast<std::uint32_t>(m.type), m.bytes));
            }
        } catch (const model::out_of_memory_error&) {
            for (const auto id : loaded->allocations()) p.owners().free(s.owner, id);
            p.owners().record(s.owner, at.device, at.core, model::counter_kind::resource_error, 1);
            throw;
        }
        p.owners().record(s.owner, at.device, at.core, model::counter_kind::model_load_count, 1);
    });
    protocol::model_loaded reply{loaded->id(), logical, loaded->definition().name, loaded->definition().tensors};
    s.models[loaded->id()] = std::move(loaded);
    return protocol::make_message(message_type::model_loaded, request_id, reply);
}

std::vector<std::uint8_t> runtime_service::unload(session& s, std::uint32_t request_id, const protocol::unload_model& request) {
    const auto it = s.models.find(request.model_id);
    if (it == s.models.end()) throw request_error(nrt::invalid, fmt::format("no loaded model {}", request.model_id));
    m_sim.call([&](model::platform& p) {
        for (const auto id : it->second->allocations()) p.owners().free(s.owner, id);
    });
    s.models.erase(it);
    return protocol::make_message(message_type::ok, request_id, protocol::empty_body{});
}

void runtime_service::execute(std::uint64_t connection, session& s, std::uint32_t request_id,
                              const protocol::execute& request) {
    const auto it = s.models.find(request.model_id);
    if (it == s.models.end()) throw request_error(nrt::invalid, fmt::format("no loaded model {}", request.model_id));
    if (request.repeat == 0) throw request_error(nrt::invalid, "an execution must run at least once");
    auto loaded = it->second;
    auto physical = s.cores.physical(loaded->logical_core());
    const auto duration = loaded->definition().duration_on(m_sim.published().spec());
    m_sim.call([&](model::platform& p) {
        repeated_execution::start(p, std::move(loaded), s.owner, std::move(physical), duration, request.repeat,
                                  [replies = m_reply_later, connection, request_id](const repeated_execution::outcome& o) {
                                      replies->send(connection,
                                                    protocol::make_message(message_type::executed, request_id,
                                                                           protocol::executed{o.status, o.completed}));
                                  });
    });
}

void runtime_service::closed(std::uint64_t connection) {
    const auto it = m_sessions.find(connection);
    if (it == m_sessions.end()) return;
    const auto owner = it->second->owner;
    m_hub.unassign(it->second->token);
    m_sessions.erase(it);
    try {
        // Frees its cores and memory and aggregates its datastore into sysfs.
        m_sim.call([owner](model::platform& p) { p.close_session(owner); });
    } catch (const model::simulation_error&) {
        // Shutting down: the model is gone with everything it held.
    }
}

std::vector<session_summary> runtime_service::sessions() const {
    std::vector<session_summary> out;
    for (const auto& [connection, s] : m_sessions) {
        session_summary summary{s->token, s->owner, s->pid, s->label, s->cores.lnc(), s->first, s->count, {}};
        for (const auto& [id, m] : s->models) summary.models.push_back(id);
        out.push_back(std::move(summary));
    }
    return out;
}

} // namespace neuron::control
