#include "executor_state.h"

#include <yaml-cpp/yaml.h>

namespace neuron::conformance {
namespace {

using protocol::message_type;

// A refusal or a lost connection is the step's failure, with the emulator's reason.
template <typename Reply, typename Body>
Reply ask(const scenario_executor::runner& r, protocol::simple_client& client, message_type type, const Body& body,
          message_type expected) {
    try {
        return client.call<Reply>(type, body, expected);
    } catch (const protocol::request_refused& e) {
        r.fail("the emulator refused: {}", e.what());
    } catch (const std::exception& e) {
        r.fail("the emulator's control channel failed: {}", e.what());
    }
}

} // namespace

protocol::simple_client& scenario_executor::runner::control() {
    auto* client = session.control();
    if (client == nullptr) fail("this target has no control channel"); // skipped before it runs
    return *client;
}

void scenario_executor::runner::settle() {
    if (auto* client = session.control()) {
        (void)ask<protocol::status_report>(*this, *client, message_type::status, protocol::empty_body{},
                                           message_type::status_report);
    }
}

void scenario_executor::runner::operator()(const inject_ecc_step& e) {
    protocol::inject_ecc m;
    m.device = number(e.device, "device");
    m.kind = e.kind;
    const auto count = number(e.count, "count");
    if (count > 0xffff) fail("count must be from 0 to 65535, not {}", count);
    m.count = static_cast<std::int64_t>(count);
    if (e.channel) {
        const auto channel = number(*e.channel, "channel");
        if (channel > 3) fail("channel must be from 0 to 3, not {}", channel);
        m.channel = static_cast<std::int32_t>(channel);
    }
    (void)ask<protocol::empty_body>(*this, control(), message_type::inject_ecc, m, message_type::ok);
}

void scenario_executor::runner::operator()(const inject_fault_step& f) {
    protocol::inject_fault m;
    m.device = number(f.device, "device");
    m.kind = f.kind;
    if (f.core) m.core = static_cast<std::int32_t>(*f.core);
    m.engine = f.engine;
    if (f.queue) m.queue = static_cast<std::int32_t>(*f.queue);
    (void)ask<protocol::empty_body>(*this, control(), message_type::inject_fault, m, message_type::ok);
}

void scenario_executor::runner::operator()(const set_repair_state_step& r) {
    const std::uint32_t state = r.state == "none" ? 0 : r.state == "pending" ? 1 : 2;
    (void)ask<protocol::empty_body>(*this, control(), message_type::set_repair_state,
                                    protocol::set_repair_state{number(r.device, "device"), state}, message_type::ok);
}

void scenario_executor::runner::operator()(const reset_step& r) {
    const auto started =
        ask<protocol::reset_started>(*this, control(), message_type::reset_device,
                                     protocol::reset_device{number(r.device, "device")}, message_type::reset_started);
    if (r.expect && started.outcome != *r.expect)
        fail("expected the reset to be {}, it was {}", *r.expect, started.outcome);
}

void scenario_executor::runner::operator()(const fail_resets_step& f) {
    (void)ask<protocol::empty_body>(*this, control(), message_type::fail_resets,
                                    protocol::fail_resets{number(f.device, "device"), f.count}, message_type::ok);
}

void scenario_executor::runner::operator()(const emit_debug_step& e) {
    protocol::emit_debug m;
    m.logical_core = number(e.core, "core");
    m.count = e.count;
    m.prefix = e.prefix.expand(values);
    m.dtype = e.dtype.expand(values);
    m.shape = e.shape;
    m.pipe = e.pipe;
    const auto got =
        ask<protocol::debug_emitted>(*this, control(), message_type::emit_debug, m, message_type::debug_emitted);
    const auto check = [&](const char* what, const std::optional<std::uint64_t>& want, std::uint64_t value) {
        if (want && *want != value) {
            fail("expected {} {}, got {} (accepted {}, dropped {}, discarded {})", *want, what, value, got.accepted,
                 got.dropped, got.discarded);
        }
    };
    check("accepted", e.accepted, got.accepted);
    check("dropped", e.dropped, got.dropped);
    check("discarded", e.discarded, got.discarded);
}

void scenario_executor::runner::operator()(const advance_step& a) {
    (void)ask<protocol::advanced>(*this, control(), message_type::advance,
                                  protocol::advance{static_cast<std::uint64_t>(a.by.count())}, message_type::advanced);
}

void scenario_executor::runner::operator()(const stream_status_step& st) {
    const auto core = number(st.core, "core");
    const auto report = ask<protocol::status_report>(*this, control(), message_type::status, protocol::empty_body{},
                                                     message_type::status_report);
    const auto root = YAML::Load(report.json);
    // A default YAML::Node is a null node, not "none": keep whether one was found.
    std::optional<YAML::Node> found;
    for (const auto& stream : root["debug_streams"]) {
        if (stream["logical_core"].as<std::uint32_t>() == core) found.emplace(stream);
    }
    if (!found) {
        // A core no process owns has no stream: not connected, nothing else to compare.
        if (st.connected && !*st.connected && !st.accepted && !st.fill && !st.dropped && !st.discarded) return;
        fail("no runtime process owns logical core {}, so it has no debug stream", core);
    }
    const auto& entry = *found;
    if (st.connected && entry["connected"].as<bool>() != *st.connected) {
        fail("expected the stream {}connected, it is {}", *st.connected ? "" : "not ",
             entry["connected"].as<bool>() ? "connected" : "not connected");
    }
    const auto check = [&](const char* key, const std::optional<std::uint64_t>& want) {
        if (want && entry[key].as<std::uint64_t>() != *want) {
            fail("expected {} {}, got {} (stream: accepted {}, consumed {}, fill {}, dropped {}, discarded {})", key,
                 *want, entry[key].as<std::uint64_t>(), entry["accepted"].as<std::uint64_t>(),
                 entry["consumed"].as<std::uint64_t>(), entry["fill"].as<std::uint64_t>(),
                 entry["dropped"].as<std::uint64_t>(), entry["discarded"].as<std::uint64_t>());
        }
    };
    check("accepted", st.accepted);
    check("fill", st.fill);
    check("dropped", st.dropped);
    check("discarded", st.discarded);
}

} // namespace neuron::conformance
