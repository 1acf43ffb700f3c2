#include "demo_command.h"

#include "arguments.h"
#include "neuron/model/driver_format.h"
#include "neuron/model/platform.h"
#include "neuron/model/simulation.h"

#include <fmt/format.h>

#include <chrono>
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
        : m_sim(sim), m_state(sim.published()), m_reset(reset_duration) {}

    void run() {
        const auto before = snapshot(m_state);
        say("model up: neuron0 reset reads {} ({}); reset_req_count is 1 on every core (the probe-time reset)",
            format_device_state(m_state.reset_state(0)).substr(0, 1), state_name(m_state.reset_state(0)));
        m_sim.call([this](platform& p) {
            p.notifications().set_enabled(true);
            p.notifications().subscribe([this](const counter_ref&, field_mask fields) {
                for (auto f : {counter_field::total, counter_field::present, counter_field::peak}) {
                    if (fields.contains(f)) ++m_notifications;
                }
            });
        });
        say("notifications on (what writing 0 to notify_delay does)");
        run_session();
        reset_device("reset requested", 0);
        m_sim.call([](platform& p) { p.device(0).resets().fail_next_resets(1); });
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
        const std::uint32_t all = (1u << cores) - 1;
        const auto session = m_sim.call([all](platform& p) {
            const auto id = p.owners().open("demo-app");
            p.owners().acquire_cores(id, 0, all);
            p.device(0).resets().request_core_reset(all);
            return id;
        });
        say("runtime session {} 'demo-app' took neuron0 cores 0-{} and asked for their reset", session, cores - 1);
        m_sim.advance(m_reset); // nrt_init waits for its core reset
        m_sim.call([session](platform& p) {
            auto allocate = [&](mem_location where, mem_type type, std::uint64_t bytes) {
                p.owners().allocate(session, 0, 0, where, static_cast<std::uint32_t>(type), bytes);
            };
            allocate(mem_location::device, mem_type::code_device, 10'000'000);
            allocate(mem_location::device, mem_type::scratchpad_device, 64 << 20);
            allocate(mem_location::host, mem_type::tensors_host, 1'000'001);
        });
        say("session loaded a model: neuron0/neuron_core0/stats/memory_usage/device_mem/total reads {}",
            m_state.counter(counter_ref::of_core(0, 0, counter_kind::device_mem), counter_field::total));
        const auto refused = m_sim.call([](platform& p) { return p.device(0).resets().request_device_reset(); });
        say("write to neuron0/reset while the device is open: {}",
            refused == reset_outcome::refused_device_open ? "ignored, as the driver does" : "ACCEPTED (unexpected)");
        m_sim.call([session](platform& p) {
            auto& owners = p.owners();
            owners.record(session, 0, 0, counter_kind::success, 98);
            owners.record(session, 0, 0, counter_kind::hw_hbm_ue_error, 2);
            owners.record(session, 0, 0, counter_kind::inference_count, 100);
            owners.record(session, 0, 0, counter_kind::model_load_count, 1);
            owners.record_macs(session, 0, 0, 1'000'000'000);
            owners.record(session, 0, 0, counter_kind::nc_time_in_use, 1500);
            owners.release(session);
        });
        say("session ran 100 executions (98 success, 2 NRT_EXEC_HW_ERR_HBM_UE) and exited: status aggregated, memory freed");
    }

    void reset_device(std::string_view what, std::uint32_t device) {
        const auto outcome = m_sim.call([device](platform& p) { return p.device(device).resets().request_device_reset(); });
        say("neuron{}: {}: {}; reset reads {}", device, what,
            outcome == reset_outcome::queued ? "queued" : "not queued", static_cast<int>(m_state.reset_state(device)));
        m_sim.advance(m_reset / 2);
        say("neuron{}: reset reads {} ({})", device, static_cast<int>(m_state.reset_state(device)),
            state_name(m_state.reset_state(device)));
        m_sim.advance(m_reset - m_reset / 2);
        say("neuron{}: reset reads {} ({})", device, static_cast<int>(m_state.reset_state(device)),
            state_name(m_state.reset_state(device)));
    }

    void inject_ecc() {
        const std::uint32_t device = m_state.device_count() > 1 ? 1 : 0;
        if (!m_state.spec().has_ecc_reporting) {
            say("{} devices report no ECC errors: no stats/hardware/ to inject into", m_state.spec().device_name);
            return;
        }
        m_sim.call([device](platform& p) {
            p.device(device).ecc().inject(ecc_kind::hbm, 3, 1);
            p.device(device).ecc().inject(ecc_kind::sram, 1);
        });
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
            fmt::print("  {:<72} {:>9} -> {}\n", counter_path(counter_ref{device, core, kind}), triple(old), triple(value));
        }
        fmt::print("{} counters changed; {} attribute notifications emitted\n", changed, m_notifications.load());
    }

    simulation& m_sim;
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
    fmt::print("serial numbers: neuron0 {}", format_serial_number(sim.published().serial_number(0)));
    demo(sim, config.reset_duration).run();
    return 0;
}

} // namespace neuron::cli
