#include "neuron/control/control_service.h"

#include "neuron/common/json_writer.h"
#include "neuron/control/session_status.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/ecc.h"
#include "neuron/model/state/hardware_fault.h"
#include "neuron/model/state/instance_identity.h"
#include "neuron/model/state/published_state.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::control {
namespace {

using protocol::message_type;
namespace nrt = model::nrt_status;

std::vector<std::uint8_t> ok(std::uint32_t id) {
    return protocol::make_message(message_type::ok, id, protocol::empty_body{});
}

std::string_view outcome_name(model::reset_outcome o) {
    switch (o) {
    case model::reset_outcome::queued: return "queued";
    case model::reset_outcome::refused_device_open: return "refused_device_open";
    case model::reset_outcome::already_pending: return "already_pending";
    }
    return "unknown";
}

void write_counters(common::json_writer& json, const model::published_state& state, std::uint32_t device,
                    std::int32_t core) {
    json.key("counters").begin_object();
    for (const auto& info : model::all_counters()) {
        const auto v = state.counter({device, core, info.kind});
        if (v == model::counter_value{}) continue;
        json.key(info.name).begin_object();
        json.key("total").value(v.total).key("present").value(v.present).key("peak").value(v.peak);
        json.end_object();
    }
    json.end_object();
}

model::engine_kind parse_engine(const std::string& name) {
    constexpr model::engine_kind kinds[] = {model::engine_kind::tensor, model::engine_kind::vector,
                                            model::engine_kind::scalar, model::engine_kind::gpsimd,
                                            model::engine_kind::sync};
    for (const auto kind : kinds) {
        if (model::engine_name(kind) == name) return kind;
    }
    throw model::invalid_argument_error(
        fmt::format("inject_fault: '{}' is not an engine (tensor, vector, scalar, gpsimd or sync)", name));
}

model::armed_fault parse_fault(const protocol::inject_fault& m) {
    const auto kind = model::fault_from_name(m.kind);
    if (!kind) {
        throw model::invalid_argument_error(
            fmt::format("inject_fault: unknown fault kind '{}' (one of: {})", m.kind, model::fault_names()));
    }
    if (m.queue < -1) {
        throw model::invalid_argument_error(
            fmt::format("inject_fault: queue {} is not a DMA queue (-1 aims at none)", m.queue));
    }
    model::armed_fault fault{*kind, {}};
    if (!m.engine.empty()) fault.target.engine = parse_engine(m.engine);
    if (m.queue >= 0) fault.target.dma_queue = static_cast<std::uint32_t>(m.queue);
    return fault;
}

// The control verbs that change the emulator (the others read it).
bool changes_the_emulator(message_type type) {
    constexpr message_type verbs[] = {message_type::inject_ecc,       message_type::inject_fault,
                                      message_type::set_repair_state, message_type::reset_device,
                                      message_type::fail_resets,      message_type::emit_debug,
                                      message_type::advance};
    return std::find(std::begin(verbs), std::end(verbs), type) != std::end(verbs);
}

// The owner of a physical core, -1 for none.
std::int64_t owner_of(const model::ownership& held, std::uint32_t device, std::uint32_t core) {
    for (const auto& o : held.owners) {
        for (const auto& [d, c] : o.cores) {
            if (d == device && c == core) return o.id;
        }
    }
    return -1;
}

} // namespace

control_service::control_service(model::api& model, debug_stream_hub& hub, const runtime_service& runtime,
                                 std::string driver_release)
        : m_model(model), m_hub(hub), m_runtime(runtime), m_driver_release(std::move(driver_release)) {}

std::vector<std::uint8_t> control_service::handle(const protocol::frame_header& header, const std::uint8_t* body,
                                                  std::size_t size, bool administrator) {
    const auto id = header.request_id;
    if (!administrator && changes_the_emulator(static_cast<message_type>(header.type))) {
        return protocol::make_message(
            message_type::error, id,
            protocol::error_reply{nrt::invalid, "only root or the emulator's own user may change the emulator; "
                                                "other users may read its status and clock"});
    }
    try {
        switch (static_cast<message_type>(header.type)) {
        case message_type::status:
            protocol::decode_body<protocol::empty_body>(body, size, "status");
            return protocol::make_message(message_type::status_report, id, protocol::status_report{status_json()});
        case message_type::inject_ecc: {
            const auto m = protocol::decode_body<protocol::inject_ecc>(body, size, "inject_ecc");
            const auto kind = model::parse_ecc_kind(m.kind);
            if (m.channel < -1) {
                throw model::invalid_argument_error(
                    fmt::format("inject_ecc: channel {} is not a channel (-1 asks for the default)", m.channel));
            }
            std::optional<std::uint32_t> channel;
            if (m.channel >= 0) channel = static_cast<std::uint32_t>(m.channel);
            m_model.inject_ecc(m.device, kind, m.count, channel);
            return ok(id);
        }
        case message_type::inject_fault: {
            const auto m = protocol::decode_body<protocol::inject_fault>(body, size, "inject_fault");
            const auto fault = parse_fault(m);
            if (m.core < -1) {
                throw model::invalid_argument_error(
                    fmt::format("inject_fault: core {} is not a core (-1 aims at every core)", m.core));
            }
            std::optional<std::uint32_t> core;
            if (m.core >= 0) core = static_cast<std::uint32_t>(m.core);
            m_model.inject_fault(m.device, core, fault);
            return ok(id);
        }
        case message_type::set_repair_state: {
            const auto m = protocol::decode_body<protocol::set_repair_state>(body, size, "set_repair_state");
            m_model.set_repair_state(m.device, static_cast<model::hbm_repair_state>(m.state));
            return ok(id);
        }
        case message_type::reset_device: {
            const auto m = protocol::decode_body<protocol::reset_device>(body, size, "reset_device");
            const auto outcome = m_model.reset_device(m.device);
            return protocol::make_message(message_type::reset_started, id,
                                          protocol::reset_started{std::string(outcome_name(outcome))});
        }
        case message_type::fail_resets: {
            const auto m = protocol::decode_body<protocol::fail_resets>(body, size, "fail_resets");
            m_model.fail_resets(m.device, m.count);
            return ok(id);
        }
        case message_type::emit_debug:
            return emit_debug(id, protocol::decode_body<protocol::emit_debug>(body, size, "emit_debug"));
        case message_type::advance: {
            const auto m = protocol::decode_body<protocol::advance>(body, size, "advance");
            if (m.ns > static_cast<std::uint64_t>(INT64_MAX)) throw model::invalid_argument_error("advance: too far");
            m_model.advance(std::chrono::nanoseconds(static_cast<std::int64_t>(m.ns)));
            return protocol::make_message(message_type::advanced, id,
                                          protocol::advanced{m_model.published().clock().now_ns()});
        }
        case message_type::read_clock: {
            protocol::decode_body<protocol::empty_body>(body, size, "read_clock");
            const auto& clock = m_model.published().clock();
            return protocol::make_message(
                message_type::clock_reading, id,
                protocol::clock_reading{clock.now_ns(), clock.mode() == model::time_mode::stepped});
        }
        default: throw protocol::protocol_error(fmt::format("message type {} is not a control request", header.type));
        }
    } catch (const model::simulation_error& e) {
        return protocol::make_message(message_type::error, id, protocol::error_reply{nrt::failure, e.what()});
    } catch (const model::model_error& e) {
        return protocol::make_message(message_type::error, id, protocol::error_reply{nrt::invalid, e.what()});
    }
}

std::vector<std::uint8_t> control_service::emit_debug(std::uint32_t request_id, const protocol::emit_debug& request) {
    model::debug_emission emission;
    emission.logical_core = request.logical_core;
    emission.prefix = request.prefix;
    emission.dtype = request.dtype;
    emission.shape = request.shape;
    emission.pipe = request.pipe;
    emission.count = request.count;
    const auto r = m_model.emit_debug(emission);
    return protocol::make_message(message_type::debug_emitted, request_id,
                                  protocol::debug_emitted{r.accepted, r.dropped, r.discarded});
}

std::string control_service::status_json() {
    const auto processes = m_runtime.sessions();
    const auto streams = m_hub.status();
    const auto held = m_model.who_holds_what();
    const auto& state = m_model.published();
    const auto& instance = state.instance();
    common::json_writer json;
    std::uint64_t fill = 0;
    std::uint64_t dropped = 0;
    for (const auto& s : streams) {
        fill += s.fill;
        dropped += s.dropped;
    }
    json.begin_object();
    json.key("summary").value(
        fmt::format("{} driver {} {} t={}ns devices={} owners={} sessions={} streams={} fill={} dropped={}",
                    instance.name, m_driver_release,
                    state.clock().mode() == model::time_mode::stepped ? "stepped" : "realtime", state.clock().now_ns(),
                    instance.device_count, held.owners.size(), held.sessions.size(), streams.size(), fill, dropped));
    json.key("instance").value(instance.name);
    json.key("instance_id").value(model::identity_of(state).id);
    json.key("driver_version").value(m_driver_release);
    json.key("time").begin_object();
    json.key("mode").value(state.clock().mode() == model::time_mode::stepped ? "stepped" : "realtime");
    json.key("now_ns").value(state.clock().now_ns());
    json.end_object();
    json.key("devices").begin_array();
    for (std::uint32_t d = 0; d < instance.device_count; ++d) {
        json.begin_object();
        json.key("index").value(d);
        json.key("reset_state").value(static_cast<std::uint64_t>(state.reset_state(d)));
        json.key("open").value(std::any_of(held.owners.begin(), held.owners.end(),
                                           [d](const model::owner_summary& o) { return o.devices.contains(d); }));
        json.key("ecc_registers").begin_object();
        for (std::size_t r = 0; r < model::ecc_register_count; ++r) {
            const auto reg = static_cast<model::ecc_register>(r);
            json.key(model::register_name(reg)).value(std::uint64_t{state.ecc_word(d, reg)});
        }
        json.end_object();
        const auto ecc = model::read_ecc(state, d);
        json.key("hardware").begin_object();
        json.key("sram_ecc_uncorrected").value(std::uint64_t{ecc.sram_ecc_uncorrected});
        json.key("mem_ecc_uncorrected").value(std::uint64_t{ecc.mem_ecc_uncorrected});
        json.key("mem_ecc_repairable_uncorrected").value(std::uint64_t{ecc.mem_ecc_repairable_uncorrected});
        json.key("sram_ecc_corrected").value(std::uint64_t{ecc.sram_ecc_corrected});
        json.key("mem_ecc_corrected").value(std::uint64_t{ecc.mem_ecc_corrected});
        json.end_object();
        write_counters(json, state, d, model::counter_ref::device_level);
        json.key("cores").begin_array();
        for (std::uint32_t c = 0; c < instance.cores_per_device(); ++c) {
            json.begin_object();
            json.key("index").value(c);
            json.key("owner").value(owner_of(held, d, c));
            write_counters(json, state, d, static_cast<std::int32_t>(c));
            json.end_object();
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();
    json.key("owners").begin_array();
    for (const auto& o : held.owners) {
        json.begin_object();
        json.key("id").value(std::uint64_t{o.id});
        json.key("label").value(o.label);
        json.key("cores").begin_array();
        for (const auto& [d, c] : o.cores) json.begin_array().value(d).value(c).end_array();
        json.end_array();
        json.end_object();
    }
    json.end_array();
    write_sessions(json, held, processes);
    json.key("debug_streams").begin_array();
    for (const auto& s : streams) {
        json.begin_object();
        json.key("logical_core").value(s.logical_core);
        json.key("connected").value(s.connected);
        json.key("capacity").value(s.capacity);
        json.key("accepted").value(s.accepted);
        json.key("consumed").value(s.consumed);
        json.key("fill").value(s.fill);
        json.key("dropped").value(s.dropped);
        json.key("discarded").value(s.discarded);
        json.key("queued_bytes").value(s.queued_bytes);
        json.end_object();
    }
    json.end_array();
    json.end_object();
    return json.str();
}

} // namespace neuron::control
