// The steps that go through the emulator's control channel and those that
// run libnrt processes: the other half of step_parser.

#include "step_parser.h"

#include "regex_limits.h"

#include "neuron/common/posix_names.h"
#include "neuron/model/spec/nrt_status.h"

#include <fmt/format.h>

#include <filesystem>

namespace neuron::conformance {
namespace {

// In stepped time nothing moves while a step waits for an execution.
constexpr std::string_view executions_need_time =
    "in stepped time an execution ends only when time is advanced: give setup {time: realtime}, or start it "
    "with nrt_execute wait: false, then advance, then nrt_wait";

} // namespace

// ---- emulator steps

action step_parser::parse_inject_ecc(const YAML::Node&, const YAML::Node& value) {
    m_fields.only_keys(value, {"device", "kind", "count", "channel"}, "inject_ecc");
    inject_ecc_step e;
    e.device = text(m_fields.required(value, "device", "inject_ecc"), "device");
    e.kind = m_fields.text(m_fields.required(value, "kind", "inject_ecc"), "kind");
    if (value["count"]) e.count = numeric(value["count"], "count", 0xffff);
    if (value["channel"]) e.channel = numeric(value["channel"], "channel", 3);
    return e;
}

action step_parser::parse_inject_fault(const YAML::Node&, const YAML::Node& value) {
    m_fields.only_keys(value, {"device", "kind", "core", "engine", "queue"}, "inject_fault");
    inject_fault_step f;
    f.device = text(m_fields.required(value, "device", "inject_fault"), "device");
    f.kind = m_fields.text(m_fields.required(value, "kind", "inject_fault"), "kind");
    // The emulator checks the kind, the engine and the ranges against the instance.
    if (value["core"]) f.core = static_cast<std::uint32_t>(number(value["core"], "core", INT32_MAX));
    if (value["engine"]) f.engine = m_fields.text(value["engine"], "engine");
    if (value["queue"]) f.queue = static_cast<std::uint32_t>(number(value["queue"], "queue", INT32_MAX));
    if (value["engine"] && value["queue"]) m_fields.fail(value, "inject_fault aims at an engine or a queue, not both");
    return f;
}

action step_parser::parse_set_repair_state(const YAML::Node&, const YAML::Node& value) {
    m_fields.only_keys(value, {"device", "state"}, "set_repair_state");
    set_repair_state_step r{text(m_fields.required(value, "device", "set_repair_state"), "device"),
                            m_fields.text(m_fields.required(value, "state", "set_repair_state"), "state")};
    if (r.state != "none" && r.state != "pending" && r.state != "failed") {
        m_fields.fail(value["state"], fmt::format("a repair state is none, pending or failed, not '{}'", r.state));
    }
    return r;
}

action step_parser::parse_reset(const YAML::Node& node, const YAML::Node& value) {
    m_fields.only_keys(value, {"device"}, "reset");
    reset_step r{text(m_fields.required(value, "device", "reset"), "device"), std::nullopt};
    if (const auto e = node["expect"]) {
        r.expect = m_fields.text(e, "a reset outcome");
        if (*r.expect != "queued" && *r.expect != "refused_device_open" && *r.expect != "already_pending") {
            m_fields.fail(e, fmt::format("a reset outcome is queued, refused_device_open or already_pending, "
                                         "not '{}'",
                                         *r.expect));
        }
    }
    return r;
}

action step_parser::parse_fail_resets(const YAML::Node&, const YAML::Node& value) {
    m_fields.only_keys(value, {"device", "count"}, "fail_resets");
    fail_resets_step f{text(m_fields.required(value, "device", "fail_resets"), "device"), 1};
    if (value["count"]) f.count = static_cast<std::uint32_t>(number(value["count"], "count", UINT32_MAX));
    return f;
}

action step_parser::parse_advance(const YAML::Node&, const YAML::Node& value) {
    if (!m_stepped_time) m_fields.fail(value, "advance needs stepped time (setup: {time: stepped})");
    const auto d = parse_duration(m_fields.text(value, "advance"));
    if (!d) m_fields.fail(value, fmt::format("advance takes a duration such as 1s or 250ms, not '{}'", value.Scalar()));
    return advance_step{*d};
}

action step_parser::parse_emit_debug(const YAML::Node& node, const YAML::Node& value) {
    m_fields.only_keys(value, {"core", "count", "prefix", "dtype", "shape", "pipe"}, "emit_debug");
    emit_debug_step e;
    e.core = text(m_fields.required(value, "core", "emit_debug"), "core");
    if (value["count"]) e.count = static_cast<std::uint32_t>(number(value["count"], "count", 10'000'000));
    if (value["prefix"]) e.prefix = text(value["prefix"], "prefix");
    if (value["dtype"]) e.dtype = text(value["dtype"], "dtype");
    if (const auto shape = value["shape"]) {
        m_fields.require_sequence(shape, "shape");
        e.shape.clear();
        for (const auto& d : shape) e.shape.push_back(number(d, "a dimension"));
    }
    if (value["pipe"]) e.pipe = static_cast<std::uint32_t>(number(value["pipe"], "pipe", 1));
    if (const auto expect = node["expect"]) {
        m_fields.only_keys(expect, {"accepted", "dropped", "discarded"}, "an emit_debug expectation");
        if (expect["accepted"]) e.accepted = number(expect["accepted"], "accepted");
        if (expect["dropped"]) e.dropped = number(expect["dropped"], "dropped");
        if (expect["discarded"]) e.discarded = number(expect["discarded"], "discarded");
    }
    return e;
}

action step_parser::parse_stream_status(const YAML::Node& node, const YAML::Node& value) {
    m_fields.only_keys(value, {"core"}, "stream_status");
    stream_status_step s;
    s.core = text(m_fields.required(value, "core", "stream_status"), "core");
    const auto expect = m_fields.required(node, "expect", "a stream_status step");
    m_fields.only_keys(expect, {"connected", "accepted", "fill", "dropped", "discarded"},
                       "a stream_status expectation");
    if (expect["connected"]) s.connected = m_fields.boolean(expect["connected"], "connected");
    if (expect["accepted"]) s.accepted = number(expect["accepted"], "accepted");
    if (expect["fill"]) s.fill = number(expect["fill"], "fill");
    if (expect["dropped"]) s.dropped = number(expect["dropped"], "dropped");
    if (expect["discarded"]) s.discarded = number(expect["discarded"], "discarded");
    return s;
}

// ---- runtime steps

action step_parser::parse_nrt_init(const YAML::Node& node, const YAML::Node& value) {
    nrt_init_step i{process_name(value), environment(node["env"]), expected_status(node, "NRT_SUCCESS"), std::nullopt};
    if (node["visible"]) i.visible = static_cast<std::uint32_t>(number(node["visible"], "visible", 4096));
    return i;
}

action step_parser::parse_nrt_load(const YAML::Node& node, const YAML::Node& value) {
    nrt_load_step l{process_name(value),
                    model(m_fields.required(node, "model", "nrt_load")),
                    {},
                    core(node["core"], -1),
                    expected_status(node, "NRT_SUCCESS")};
    l.as = node["as"] ? m_fields.text(node["as"], "a model's name") : node["model"].Scalar();
    return l;
}

action step_parser::parse_nrt_wait(const YAML::Node& node, const YAML::Node& value) {
    return nrt_wait_step{process_name(value), expected_status(node, "NRT_SUCCESS")};
}

action step_parser::parse_nrt_unload(const YAML::Node& node, const YAML::Node& value) {
    return nrt_unload_step{process_name(value), m_fields.text(m_fields.required(node, "model", "nrt_unload"), "model"),
                           expected_status(node, "NRT_SUCCESS")};
}

action step_parser::parse_nrt_close(const YAML::Node&, const YAML::Node& value) {
    return nrt_close_step{process_name(value)};
}
action step_parser::parse_quit(const YAML::Node&, const YAML::Node& value) {
    return end_process_step{process_name(value), ending::quit, 0};
}
action step_parser::parse_exit(const YAML::Node&, const YAML::Node& value) {
    return end_process_step{process_name(value), ending::exit, 0};
}
action step_parser::parse_abort(const YAML::Node&, const YAML::Node& value) {
    return end_process_step{process_name(value), ending::abort, 0};
}

action step_parser::parse_kill(const YAML::Node& node, const YAML::Node& value) {
    end_process_step k{process_name(value), ending::kill, 9};
    if (const auto s = node["signal"]) {
        const auto found = common::signal_from_name(m_fields.text(s, "a signal"));
        if (!found) m_fields.fail(s, fmt::format("unknown signal '{}'", s.Scalar()));
        k.signal = *found;
    }
    return k;
}

action step_parser::parse_expect_exit(const YAML::Node& node, const YAML::Node& value) {
    expect_exit_step e{process_name(value), std::nullopt, std::nullopt};
    if (node["status"]) e.status = static_cast<int>(number(node["status"], "an exit status", 255));
    if (const auto s = node["signal"]) {
        const auto found = common::signal_from_name(m_fields.text(s, "a signal"));
        if (!found) m_fields.fail(s, fmt::format("unknown signal '{}'", s.Scalar()));
        e.signal = *found;
    }
    if (e.status.has_value() == e.signal.has_value()) m_fields.fail(node, "expect_exit takes one of status and signal");
    return e;
}

action step_parser::parse_runtime_log(const YAML::Node& node, const YAML::Node& value) {
    runtime_log_step l{process_name(value), std::nullopt, std::nullopt};
    const auto e = m_fields.required(node, "expect", "a runtime_log step");
    m_fields.only_keys(e, {"line", "no_line"}, "a runtime_log expectation");
    if (e["line"]) l.line = pattern(e["line"], "line");
    if (e["no_line"]) l.no_line = pattern(e["no_line"], "no_line");
    if (!l.line && !l.no_line) m_fields.fail(e, "a runtime_log expectation needs line or no_line");
    return l;
}

action step_parser::parse_debug_connect(const YAML::Node& node, const YAML::Node& value) {
    return debug_connect_step{process_name(value), core(node["core"], 0), expected_status(node, "NRT_SUCCESS")};
}

action step_parser::parse_debug_read(const YAML::Node& node, const YAML::Node& value) {
    debug_read_step r{
        process_name(value), core(node["core"], 0), std::nullopt, expected_status(node, "NRT_SUCCESS"), {}, {}};
    if (node["count"]) r.count = number(node["count"], "count");
    if (r.count && r.expect != "NRT_SUCCESS") m_fields.fail(node["expect"], "a debug_read with a count expects events");
    if (const auto prefixes = node["prefixes"]) {
        if (!r.count) m_fields.fail(prefixes, "prefixes checks the events of a debug_read with a count");
        m_fields.require_sequence(prefixes, "prefixes");
        for (const auto& p : prefixes) r.prefixes.push_back(m_fields.text(p, "a prefix"));
        if (r.prefixes.size() != *r.count)
            m_fields.fail(prefixes, fmt::format("give one prefix per event ({})", *r.count));
    }
    if (const auto events = node["events"]) {
        if (!r.count) m_fields.fail(events, "events checks the events of a debug_read with a count");
        m_fields.require_sequence(events, "events");
        for (const auto& e : events) {
            m_fields.require_map(e, "an event");
            m_fields.only_keys(e, {"nc", "pipe", "prefix", "dtype", "shape", "bytes", "data"}, "an event");
            debug_event_check c;
            for (const auto& entry : e) {
                const auto key = entry.first.Scalar();
                if (key == "shape") {
                    m_fields.require_sequence(entry.second, "shape");
                    std::string dims;
                    for (const auto& d : entry.second)
                        dims += (dims.empty() ? "" : ",") + m_fields.text(d, "a dimension");
                    c.fields.emplace(key, text_template(dims));
                } else {
                    c.fields.emplace(key, text(entry.second, key));
                }
            }
            r.events.push_back(std::move(c));
        }
        if (r.events.size() != *r.count)
            m_fields.fail(events, fmt::format("give one event per event read ({})", *r.count));
    }
    return r;
}

action step_parser::parse_debug_drain(const YAML::Node& node, const YAML::Node& value) {
    debug_drain_step d{process_name(value), core(node["core"], 0), std::nullopt, std::nullopt};
    if (const auto e = node["expect"]) {
        m_fields.only_keys(e, {"count", "in_order"}, "a debug_drain expectation");
        if (e["count"]) d.count = number(e["count"], "count");
        if (e["in_order"]) d.in_order = m_fields.boolean(e["in_order"], "in_order");
    }
    return d;
}

action step_parser::parse_debug_close(const YAML::Node& node, const YAML::Node& value) {
    return debug_close_step{process_name(value), core(node["core"], 0)};
}

// A step's expected NRT status, or `fallback` without an expect.
std::string step_parser::expected_status(const YAML::Node& node, std::string fallback) {
    return node["expect"] ? status(node["expect"]) : fallback;
}

action step_parser::parse_run_model(const YAML::Node& node, const YAML::Node& value) {
    if (m_stepped_time) m_fields.fail(value, executions_need_time);
    run_model_step r;
    r.model = model(value);
    r.process = node["process"] ? process_name(node["process"]) : "app";
    r.env = environment(node["env"]);
    r.core = core(node["core"], -1);
    if (node["executions"])
        r.executions = static_cast<std::uint32_t>(number(node["executions"], "executions", 1'000'000));
    if (node["expect"]) r.expect = statuses(node["expect"]);
    return r;
}

action step_parser::parse_nrt_execute(const YAML::Node& node, const YAML::Node& value) {
    nrt_execute_step e;
    e.process = process_name(value);
    e.model = m_fields.text(m_fields.required(node, "model", "nrt_execute"), "model");
    if (node["count"]) e.count = static_cast<std::uint32_t>(number(node["count"], "count", 1'000'000));
    e.expect = node["expect"] ? statuses(node["expect"]) : std::vector<std::string>{"NRT_SUCCESS"};
    if (node["wait"]) e.wait = m_fields.boolean(node["wait"], "wait");
    if (!e.wait && e.count != 1) m_fields.fail(node["wait"], "wait: false starts one execution (count: 1)");
    if (e.wait && m_stepped_time) m_fields.fail(value, executions_need_time);
    return e;
}

std::string step_parser::process_name(const YAML::Node& node) {
    const auto name = m_fields.text(node, "a process name");
    // It names the process's files in the scenario's directory too.
    if (name.empty() || name.size() > 64 ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
            std::string::npos ||
        name == "emulator") {
        m_fields.fail(
            node, fmt::format("a process name is a word of letters, digits, _ and - (not 'emulator'), not '{}'", name));
    }
    return name;
}

std::string step_parser::status(const YAML::Node& node) {
    const auto name = m_fields.text(node, "a status");
    if (name != "any" && name != "any_error" && !model::status_from_name(name)) {
        m_fields.fail(node, fmt::format("'{}' is not an NRT_STATUS name (NRT_SUCCESS, NRT_INVALID, NRT_RESOURCE, ...) "
                                        "any or any_error",
                                        name));
    }
    return name;
}

std::vector<std::string> step_parser::statuses(const YAML::Node& node) {
    if (!node.IsSequence()) return {status(node)};
    if (node.size() == 0) m_fields.fail(node, "give at least one status");
    std::vector<std::string> out;
    for (const auto& s : node) out.push_back(status(s));
    return out;
}

std::map<std::string, std::string> step_parser::environment(const YAML::Node& node) {
    std::map<std::string, std::string> env;
    if (!node) return env;
    m_fields.require_map(node, "env");
    for (const auto& entry : node) {
        const auto name = entry.first.Scalar();
        if (name.empty() || name.find_first_of("= ") != std::string::npos) {
            m_fields.fail(entry.first, fmt::format("'{}' is not an environment variable name", name));
        }
        env[name] = m_fields.text(entry.second, name);
    }
    return env;
}

std::string step_parser::model(const YAML::Node& node) {
    const auto name = m_fields.text(node, "a model");
    if (m_models.contains(name)) return name;
    const auto path = std::filesystem::path(m_directory) / name;
    if (!std::filesystem::is_regular_file(path)) {
        m_fields.fail(node, fmt::format("'{}' is neither one of this scenario's models nor a file beside it", name));
    }
    return name;
}

int step_parser::core(const YAML::Node& node, int fallback) {
    if (!node) return fallback;
    const auto t = m_fields.text(node, "core");
    if (t == "-1") return -1;
    return static_cast<int>(number(node, "core", 4095));
}

} // namespace neuron::conformance
