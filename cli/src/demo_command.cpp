#include "demo_command.h"

#include "arguments.h"
#include "neuron/model/runtime/api.h"
#include "neuron/model/runtime/simulation.h"
#include "neuron/model/spec/nrt_status.h"
#include "neuron/model/state/published_state.h"
#include "neuron/sysfs/driver_format.h"

#include <fmt/format.h>

#include <chrono>
#include <future>
#include <map>

namespace neuron::cli {
namespace {

using namespace neuron::model;
using counter_snapshot = std::map<std::tuple<std::uint32_t, std::int32_t, counter_kind>, counter_value>;

std::string counter_path(const counter_ref& ref) {
    const auto& info = info_of(ref.kind);
    const auto owner = ref.core == counter_ref::device_level
                           ? fmt::format("neuron{}", ref.device)
                           : fmt::format("neuron{}/neuron_core{}", ref.device, ref.core);
    std::string_view dir;
    switch (info.group) {
    case counter_group::status: dir = "stats/status/"; break;
    case counter_group::other_info: dir = "stats/other_info/"; break;
    case counter_group::memory_total: dir = "stats/memory_usage/"; break;
    case counter_group::device_category: dir = "stats/memory_usage/device_mem/"; break;
    case counter_group::host_category: dir = "stats/memory_usage/host_mem/"; break;
    }
    return fmt::format("{}/{}{}", owner, dir, info.name);
}

counter_snapshot snapshot(const published_state& state) {
    counter_snapshot values;
    for (std::uint32_t d = 0; d < state.device_count(); ++d) {
        for (std::int32_t c = counter_ref::device_level; c < static_cast<std::int32_t>(state.cores_per_device()); ++c) {
            for (const auto& info : all_counters()) {
                values[{d, c, info.kind}] = state.counter(counter_ref{d, c, info.kind});
            }
        }
    }
    return values;
}

std::string triple(const counter_value& v) { return fmt::format("{}/{}/{}", v.total, v.present, v.peak); }

std::string_view state_name(device_state s) {
    switch (s) {
    case device_state::resetting: return "RESET in progress";
    case device_state::ready: return "READY";
    case device_state::invalid: return "INVALID";
    }
    return "?";
}

class demo {
public:
    demo(simulation& sim, std::chrono::nanoseconds reset_duration)
            : m_model(sim), m_state(sim.published()), m_reset(reset_duration) {}

    void run() {
        const auto before = snapshot(m_state);
        say("model up: neuron0 reset reads {} ({}); reset_req_count is 1 on every core (the probe-time reset)",
            sysfs::format_device_state(m_state.reset_state(0)).substr(0, 1), state_name(m_state.reset_state(0)));
        m_model.set_notifications(true);
        m_model.subscribe([this](const counter_ref&, field_mask fields) {
            for (auto f : {counter_field::total, counter_field::present, counter_field::peak}) {
                if (fields.contains(f)) ++m_notifications;
            }
        });
        say("notifications on (what writing 0 to notify_delay does)");
        run_session();
        reset_device("reset requested", 0);
        m_model.fail_resets(0, 1);
        reset_device("next reset armed to fail; reset requested", 0);
        inject_ecc();
        report_changes(before);
    }

private:
    template <typename... T>
    void say(fmt::format_string<T...> text, T&&... args) {
        fmt::print("[{:8.3f} s] {}\n", static_cast<double>(m_state.clock().now_ns()) / 1e9,
                   fmt::format(text, std::forward<T>(args)...));
    }

    void run_session() {
        const std::uint32_t cores = m_state.cores_per_device();
        session_request request;
        request.label = "demo-app";
        request.selection = core_selection::range;
        request.count = cores; // LNC=1: device 0's cores
        const auto session = m_model.open_session(request).owner;
        say("runtime session {} 'demo-app' took neuron0 cores 0-{} and asked for their reset", session, cores - 1);
        m_model.advance(m_reset); // nrt_init waits for its core reset
        m_model.allocate(session, 0, mem_location::device, static_cast<std::uint32_t>(mem_type::scratchpad_device),
                         64 << 20);
        m_model.allocate(session, 0, mem_location::host, static_cast<std::uint32_t>(mem_type::tensors_host), 1'000'001);
        const auto placed = m_model.load(session, 0, demo_model());
        say("session loaded a model: neuron0/neuron_core0/stats/memory_usage/device_mem/total reads {}",
            m_state.counter(counter_ref::of_core(0, 0, counter_kind::device_mem), counter_field::total));
        const auto refused = m_model.reset_device(0);
        say("write to neuron0/reset while the device is open: {}",
            refused == reset_outcome::refused_device_open ? "ignored, as the driver does" : "ACCEPTED (unexpected)");
        std::promise<execution_outcome> finished;
        auto outcome = finished.get_future();
        m_model.execute(session, placed.model, 100, [&finished](const execution_outcome& o) { finished.set_value(o); });
        // 100 executions of 1 ms of work, each with its fixed cost beside.
        m_model.advance(100 * execution_time);
        while (outcome.wait_for(std::chrono::seconds(0)) != std::future_status::ready) m_model.advance(execution_time);
        const auto o = outcome.get();
        say("session ran {} executions of 1 ms, the 2nd and the 50th forced to fail; it answers {}", o.completed,
            status_name(o.status).value_or("an unknown status"));
        m_model.close_session(session);
        say("session exited: status aggregated, memory freed");
    }

    // 1 ms of tensor-engine work per execution, 10^9 MACs; two executions fail.
    compiled_model demo_model() const {
        compiled_model m;
        m.name = "demo";
        m.memory.push_back({mem_location::device, mem_type::code_device, 10'000'000});
        for (const auto& engine : m_state.spec().engines) {
            if (engine.kind == engine_kind::tensor) m.engine_cycles[0] = engine.clock_hz / 1000;
        }
        m.macs = 1'000'000'000;
        for (const std::uint64_t n : {2, 50}) {
            fault_trigger f;
            f.status = nrt_status::exec_hw_err_hbm_ue;
            f.n = n;
            m.faults.push_back(f);
        }
        return m;
    }

    void reset_device(std::string_view what, std::uint32_t device) {
        const auto outcome = m_model.reset_device(device);
        say("neuron{}: {}: {}; reset reads {}", device, what,
            outcome == reset_outcome::queued ? "queued" : "not queued", static_cast<int>(m_state.reset_state(device)));
        m_model.advance(m_reset / 2);
        say("neuron{}: reset reads {} ({})", device, static_cast<int>(m_state.reset_state(device)),
            state_name(m_state.reset_state(device)));
        m_model.advance(m_reset - m_reset / 2);
        say("neuron{}: reset reads {} ({})", device, static_cast<int>(m_state.reset_state(device)),
            state_name(m_state.reset_state(device)));
    }

    void inject_ecc() {
        const std::uint32_t device = m_state.device_count() > 1 ? 1 : 0;
        if (!m_state.spec().has_ecc_reporting) {
            say("{} devices report no ECC errors: no stats/hardware/ to inject into", m_state.spec().device_name);
            return;
        }
        m_model.inject_ecc(device, ecc_kind::hbm, 3, 1);
        m_model.inject_ecc(device, ecc_kind::sram, 1, std::nullopt);
        const auto ecc = read_ecc(m_state, device);
        say("neuron{}: injected 3 uncorrected HBM errors on channel 1 and 1 in SRAM", device);
        say("  stats/hardware: sram_ecc_uncorrected {}, mem_ecc_uncorrected {}, mem_ecc_repairable_uncorrected {}",
            ecc.sram_ecc_uncorrected, ecc.mem_ecc_uncorrected, ecc.mem_ecc_repairable_uncorrected);
    }

    void report_changes(const counter_snapshot& before) {
        const auto after = snapshot(m_state);
        fmt::print("\ncounters that changed (total/present/peak):\n");
        std::size_t changed = 0;
        for (const auto& [key, value] : after) {
            const auto& old = before.at(key);
            if (old == value) continue;
            ++changed;
            const auto& [device, core, kind] = key;
            fmt::print("  {:<72} {:>9} -> {}\n", counter_path(counter_ref{device, core, kind}), triple(old),
                       triple(value));
        }
        fmt::print("{} counters changed; {} attribute notifications emitted\n", changed, m_notifications.load());
    }

    static constexpr std::chrono::milliseconds execution_time{1};

    api m_model;
    const published_state& m_state;
    std::chrono::nanoseconds m_reset;
    std::atomic<std::uint64_t> m_notifications{0};
};

} // namespace

int run_demo(std::span<const std::string> args) {
    argument_parser parser("demo");
    parser.option("instance", "NAME", "instance type (see 'neuron-emu instances')", "trn1.32xlarge")
        .option("seed", "N", "seed for serial numbers", "0")
        .option("reset-ms", "MS", "simulated duration of one device reset", "1000");
    const auto options = parser.parse(args);

    platform_config config;
    config.instance = options.value("instance");
    config.seed = options.unsigned_value("seed");
    config.reset_duration = std::chrono::milliseconds(options.unsigned_value("reset-ms"));
    config.mode = time_mode::stepped;
    simulation sim(config);

    const auto& type = sim.published().instance();
    const auto& spec = type.spec();
    fmt::print("{}: {} x {} (ND{}/NC{}), {} NeuronCores and {} GiB per device; stepped simulated time\n", type.name,
               type.device_count, spec.device_name, spec.device_arch_suffix, spec.core_arch_suffix,
               spec.cores_per_device, type.device_memory_bytes() >> 30);
    fmt::print("serial numbers: neuron0 {}", sysfs::format_serial_number(sim.published().serial_number(0)));
    demo(sim, config.reset_duration).run();
    return 0;
}

} // namespace neuron::cli
