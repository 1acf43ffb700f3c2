#include "ctl_command.h"

#include "arguments.h"
#include "usage_error.h"

#include "neuron/common/closest_match.h"
#include "neuron/common/json_writer.h"
#include "neuron/control/control_server.h"
#include "neuron/protocol/simple_client.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace neuron::cli {
namespace {

using protocol::message_type;

constexpr std::string_view verbs_help = R"(verbs:
  status [--json]                                   instance, time, devices, owners, counters, streams
  inject-ecc --device D --kind K [--count N] [--channel C]
                                                    K: sram, hbm, hbm-repairable, sram-corrected, hbm-corrected;
                                                    an hbm error strikes a run on a core of channel C
                                                    (default 0) when its DMA next reads device memory
  inject-fault --device D --kind K [--core C] [--engine E | --queue Q]
                                                    arm a fault on core C (default: every core of D); it
                                                    strikes when the core next does what K names. K:
                                                    dma_abort, out_of_bounds, hbm_uncorrectable,
                                                    hbm_repairable, sram_uncorrectable,
                                                    notification_overflow, collectives_hang
  set-repair-state --device D --state S             the firmware's HBM repair state (Trainium2):
                                                    none, pending or failed
  reset --device D                                  a device reset, as a write to neuronD/reset
  fail-resets --device D [--count N]                the next N resets of the device fail
  emit-debug --core C [--count N] [--prefix P] [--dtype T] [--shape 2,3] [--pipe 0|1] [--json]
                                                    device prints on global logical core C
  advance --ns N                                    move stepped time forward
)";

std::vector<std::string> verb_names() {
    return {"status", "inject-ecc",  "inject-fault", "set-repair-state",
            "reset",  "fail-resets", "emit-debug",   "advance"};
}

// ctl failures that are not usage errors: exit 1 with the reason.
class ctl_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::vector<std::uint64_t> parse_shape(const std::string& text) {
    std::vector<std::uint64_t> shape;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const auto item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        shape.push_back(parse_unsigned(item, "--shape dimension"));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return shape;
}

std::uint32_t small(std::uint64_t value, std::string_view what) {
    if (value > UINT32_MAX) throw usage_error(fmt::format("{} {} is too large", what, value));
    return static_cast<std::uint32_t>(value);
}

std::int32_t signed_index(std::uint64_t value, std::string_view option, std::string_view what) {
    if (value > INT32_MAX) throw usage_error(fmt::format("{} {} is not {}", option, value, what));
    return static_cast<std::int32_t>(value);
}

class ctl {
public:
    ctl(std::string path, std::string verb, std::span<const std::string> args)
            : m_path(std::move(path)), m_verb(std::move(verb)), m_args(args) {}

    int run() {
        if (m_verb == "status") return status();
        if (m_verb == "inject-ecc") return inject_ecc();
        if (m_verb == "inject-fault") return inject_fault();
        if (m_verb == "set-repair-state") return set_repair_state();
        if (m_verb == "reset") return reset();
        if (m_verb == "fail-resets") return fail_resets();
        if (m_verb == "emit-debug") return emit_debug();
        if (m_verb == "advance") return advance();
        const auto hint = common::closest_match(m_verb, verb_names());
        throw usage_error(fmt::format("ctl: unknown verb '{}'{}\n{}", m_verb,
                                      hint ? fmt::format("; did you mean '{}'?", *hint) : "", verbs_help));
    }

private:
    argument_parser parser() const { return argument_parser("ctl " + m_verb); }

    protocol::simple_client& client() {
        if (!m_client) {
            try {
                m_client =
                    std::make_unique<protocol::simple_client>(m_path, protocol::peer_role::control, "neuron-emu ctl");
            } catch (const std::exception& e) {
                throw ctl_error(fmt::format("ctl: {} (is `neuron-emu serve --control {}` running?)", e.what(), m_path));
            }
        }
        return *m_client;
    }

    template <typename Reply, typename Body>
    Reply call(message_type type, const Body& body, message_type expected) {
        try {
            return client().call<Reply>(type, body, expected);
        } catch (const protocol::request_refused& e) {
            throw ctl_error(fmt::format("ctl {}: {}", m_verb, e.what()));
        } catch (const protocol::connection_error& e) {
            throw ctl_error(fmt::format("ctl {}: {}", m_verb, e.what()));
        }
    }

    int status() {
        auto p = parser();
        p.flag("json", "the whole report as JSON");
        const auto o = p.parse(m_args);
        const auto report =
            call<protocol::status_report>(message_type::status, protocol::empty_body{}, message_type::status_report);
        if (o.has("json")) {
            fmt::print("{}\n", report.json);
        } else {
            fmt::print("{}\n", YAML::Load(report.json)["summary"].as<std::string>());
        }
        return 0;
    }

    int inject_ecc() {
        auto p = parser();
        p.option("device", "D", "device index")
            .option("kind", "K", "sram, hbm, hbm-repairable, sram-corrected, hbm-corrected")
            .option("count", "N", "errors to add", "1")
            .option("channel", "C", "HBM channel (default 0)");
        const auto o = p.parse(m_args);
        protocol::inject_ecc m;
        m.device = small(o.unsigned_value("device"), "--device");
        m.kind = o.value("kind");
        m.count = static_cast<std::int64_t>(small(o.unsigned_value("count"), "--count"));
        if (o.has("channel")) {
            // -1 on the wire means "the default channel": no channel number may become it.
            const auto channel = o.unsigned_value("channel");
            if (channel > INT32_MAX) throw usage_error(fmt::format("--channel {} is not an HBM channel", channel));
            m.channel = static_cast<std::int32_t>(channel);
        }
        call<protocol::empty_body>(message_type::inject_ecc, m, message_type::ok);
        fmt::print("neuron{}: injected {} {} error{}{}\n", m.device, m.count, m.kind, m.count == 1 ? "" : "s",
                   m.channel >= 0 ? fmt::format(" on channel {}", m.channel) : "");
        return 0;
    }

    int inject_fault() {
        auto p = parser();
        p.option("device", "D", "device index")
            .option("kind", "K", "the fault (ctl --help lists them)")
            .option("core", "C", "physical NeuronCore of the device (default: every core)")
            .option("engine", "E", "the engine it strikes: tensor, vector, scalar, gpsimd or sync")
            .option("queue", "Q", "the DMA queue it strikes, on every DMA engine");
        const auto o = p.parse(m_args);
        protocol::inject_fault m;
        m.device = small(o.unsigned_value("device"), "--device");
        m.kind = o.value("kind");
        // -1 on the wire means "none": no core or queue number may become it.
        if (o.has("core")) m.core = signed_index(o.unsigned_value("core"), "--core", "a NeuronCore");
        if (o.has("engine")) m.engine = o.value("engine");
        if (o.has("queue")) m.queue = signed_index(o.unsigned_value("queue"), "--queue", "a DMA queue");
        call<protocol::empty_body>(message_type::inject_fault, m, message_type::ok);
        std::string aim;
        if (!m.engine.empty()) aim = fmt::format(", aimed at the {} engine", m.engine);
        if (m.queue >= 0) aim = fmt::format(", aimed at DMA queue {}", m.queue);
        fmt::print("neuron{}: {} armed on {}{}\n", m.device, m.kind,
                   m.core >= 0 ? fmt::format("core {}", m.core) : std::string("every core"), aim);
        return 0;
    }

    int set_repair_state() {
        auto p = parser();
        p.option("device", "D", "device index").option("state", "S", "none, pending or failed");
        const auto o = p.parse(m_args);
        const auto device = small(o.unsigned_value("device"), "--device");
        const auto& name = o.value("state");
        const std::vector<std::string> states{"none", "pending", "failed"};
        const auto it = std::find(states.begin(), states.end(), name);
        if (it == states.end()) {
            throw usage_error(fmt::format("ctl set-repair-state: --state is none, pending or failed, not '{}'", name));
        }
        const auto state = static_cast<std::uint32_t>(it - states.begin());
        call<protocol::empty_body>(message_type::set_repair_state, protocol::set_repair_state{device, state},
                                   message_type::ok);
        fmt::print("neuron{}: HBM repair state {} ({})\n", device, name, state);
        return 0;
    }

    int reset() {
        auto p = parser();
        p.option("device", "D", "device index");
        const auto o = p.parse(m_args);
        const auto device = small(o.unsigned_value("device"), "--device");
        const auto r = call<protocol::reset_started>(message_type::reset_device, protocol::reset_device{device},
                                                     message_type::reset_started);
        fmt::print("neuron{}: reset {}\n", device, r.outcome);
        return 0;
    }

    int fail_resets() {
        auto p = parser();
        p.option("device", "D", "device index").option("count", "N", "resets to fail", "1");
        const auto o = p.parse(m_args);
        const auto device = small(o.unsigned_value("device"), "--device");
        const auto count = small(o.unsigned_value("count"), "--count");
        call<protocol::empty_body>(message_type::fail_resets, protocol::fail_resets{device, count}, message_type::ok);
        fmt::print("neuron{}: the next {} reset{} will fail\n", device, count, count == 1 ? "" : "s");
        return 0;
    }

    int emit_debug() {
        auto p = parser();
        p.option("core", "C", "global logical NeuronCore")
            .option("count", "N", "events", "1")
            .option("prefix", "P", "print prefix", "debug")
            .option("dtype", "T", "tensor dtype", "float32")
            .option("shape", "D1,D2", "tensor shape", "1")
            .option("pipe", "0|1", "0 stdout, 1 stderr", "0")
            .flag("json", "the counts as JSON");
        const auto o = p.parse(m_args);
        protocol::emit_debug m;
        m.logical_core = small(o.unsigned_value("core"), "--core");
        m.count = small(o.unsigned_value("count"), "--count");
        m.prefix = o.value("prefix");
        m.dtype = o.value("dtype");
        m.shape = parse_shape(o.value("shape"));
        m.pipe = small(o.unsigned_value("pipe"), "--pipe");
        const auto r = call<protocol::debug_emitted>(message_type::emit_debug, m, message_type::debug_emitted);
        if (o.has("json")) {
            common::json_writer json;
            json.begin_object()
                .key("accepted")
                .value(r.accepted)
                .key("dropped")
                .value(r.dropped)
                .key("discarded")
                .value(r.discarded)
                .end_object();
            fmt::print("{}\n", json.str());
        } else {
            fmt::print("logical core {}: {} emitted, {} accepted, {} dropped (buffer full), {} discarded (no client)\n",
                       m.logical_core, m.count, r.accepted, r.dropped, r.discarded);
        }
        return 0;
    }

    int advance() {
        auto p = parser();
        p.option("ns", "N", "nanoseconds of simulated time");
        const auto o = p.parse(m_args);
        const auto r = call<protocol::advanced>(message_type::advance, protocol::advance{o.unsigned_value("ns")},
                                                message_type::advanced);
        fmt::print("simulated time is {} ns\n", r.now_ns);
        return 0;
    }

    std::string m_path;
    std::string m_verb;
    std::span<const std::string> m_args;
    std::unique_ptr<protocol::simple_client> m_client;
};

} // namespace

int run_ctl(std::span<const std::string> args) {
    const char* env = std::getenv("NEURON_EMU_CONTROL");
    std::string path = env != nullptr && *env != '\0' ? env : control::default_control_path;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        if (args[i] == "--help" || args[i] == "-h") {
            throw help_requested(
                fmt::format("usage: neuron-emu ctl [--control PATH] VERB [OPTIONS]\n\n"
                            "--control PATH: the emulator's control socket (default: $NEURON_EMU_CONTROL, "
                            "else {})\n\n{}",
                            control::default_control_path, verbs_help));
        }
        if (args[i] == "--control") {
            if (i + 1 >= args.size()) throw usage_error("ctl: --control needs a value (PATH)");
            path = args[++i];
        } else if (args[i].starts_with("--control=")) {
            path = args[i].substr(10);
        } else {
            break;
        }
    }
    if (i >= args.size()) throw usage_error(fmt::format("ctl: give a verb\n{}", verbs_help));
    try {
        return ctl(path, args[i], args.subspan(i + 1)).run();
    } catch (const ctl_error& e) {
        fmt::print(stderr, "neuron-emu: {}\n", e.what());
        return 1;
    }
}

} // namespace neuron::cli
