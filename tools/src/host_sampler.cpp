#include "neuron/tools/host_sampler.h"

#include "emulator_sampler.h"
#include "proc_sampler.h"
#include "tree_sampler.h"

#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/pci_placement.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <thread>

namespace neuron::tools {
namespace {

constexpr const char* no_emulator =
    "no emulator to ask (NEURON_EMU_CONTROL is not set): what only the runtime knows cannot be read";

std::uint64_t monotonic_ns() {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    return line;
}

// The logical core size as the runtime takes it (NEURON_LOGICAL_NC_CONFIG,
// else NEURON_RT_VIRTUAL_CORE_SIZE), where the devices allow it; else their
// default: 2 on Trainium2, 1 elsewhere.
std::uint32_t lnc_for(const std::vector<device_sample>& devices) {
    const bool trainium2 =
        !devices.empty() && devices.front().device_name == model::spec_of(model::device_kind::trainium2).device_name;
    const std::uint32_t largest = trainium2 ? 2 : 1;
    for (const char* name : {"NEURON_LOGICAL_NC_CONFIG", "NEURON_RT_VIRTUAL_CORE_SIZE"}) {
        const char* text = std::getenv(name);
        if (text == nullptr) continue;
        const std::string_view value(text);
        std::uint32_t lnc = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), lnc);
        if (error == std::errc{} && end == value.data() + value.size() && lnc >= 1 && lnc <= largest) return lnc;
        break; // the runtime reads the first one set
    }
    return largest;
}

void add_process_facts(const std::string& proc_root, runtime_sample& r) {
    r.command = command_of(proc_root, r.pid);
    if (r.command.empty()) r.command = r.tag;
    r.cpu = cpu_of(proc_root, r.pid);
}

} // namespace

sample_sources default_sources() {
    sample_sources sources;
    if (const char* control = std::getenv("NEURON_EMU_CONTROL")) sources.control_path = control;
    return sources;
}

host_sample sample_host(const sample_sources& sources) {
    host_sample h;
    h.devices = read_devices(sources.sysfs_root);
    if (sources.control_path.empty()) {
        h.runtime_error = no_emulator;
        h.time_ns = monotonic_ns();
    } else {
        try {
            auto emulator = read_emulator(sources.control_path);
            h.time_ns = emulator.now_ns;
            h.time_stepped = emulator.stepped;
            h.instance_type = std::move(emulator.instance_type);
            h.instance_id = std::move(emulator.instance_id);
            h.runtimes = std::move(emulator.runtimes);
            // A session opened or closed while the status was taken has no process.
            std::erase_if(h.runtimes, [](const runtime_sample& r) { return r.pid == 0; });
            for (auto& d : h.devices) {
                if (d.index >= emulator.corrected_ecc.size()) continue;
                if (!d.mem_ecc_corrected) d.mem_ecc_corrected = emulator.corrected_ecc[d.index].first;
                if (!d.sram_ecc_corrected) d.sram_ecc_corrected = emulator.corrected_ecc[d.index].second;
            }
            for (auto& r : h.runtimes) add_process_facts(sources.proc_root, r);
        } catch (const std::runtime_error& e) {
            h.runtime_error = e.what();
            // Still the emulator's clock, if it answers that: the next period is on it.
            try {
                h.time_ns = emulator_clock(sources.control_path).now_ns();
            } catch (const std::runtime_error&) {}
        }
    }
    if (!h.runtime_error.empty()) {
        // EC2 (Nitro) names the instance in its DMI table; other machines name their model there.
        h.instance_type = first_line(sources.dmi_root + "/product_name");
        if (h.instance_type.find('.') == std::string::npos || h.instance_type.find(' ') != std::string::npos) {
            h.instance_type.clear();
        }
        h.instance_id = first_line(sources.dmi_root + "/board_asset_tag");
        if (!h.instance_id.starts_with("i-")) h.instance_id.clear();
    }
    h.lnc = lnc_for(h.devices);
    // The driver tells the real tools where each device sits on PCI; the tree
    // does not, so it comes from what is known of the instance.
    for (auto& d : h.devices) {
        if (const auto placement = model::pci_placement_of(h.instance_type, d.index)) {
            d.bdf = placement->bdf;
            d.cpu_affinity = placement->cpu_affinity;
            d.numa_node = placement->numa_node;
        }
    }
    h.device_users = device_users(sources.proc_root);
    h.system = read_system(sources.proc_root);
    return h;
}

bool wait_for_time(const sample_sources& sources, std::uint64_t target_ns, const std::atomic<bool>* stop) {
    // Stepped time moves only when someone advances it, so it is asked for
    // often, over one connection; realtime moves on its own.
    constexpr auto poll = std::chrono::milliseconds(10);
    try {
        std::optional<emulator_clock> emulator;
        if (!sources.control_path.empty()) emulator.emplace(sources.control_path);
        for (;;) {
            if (stop != nullptr && stop->load()) return false;
            const auto now = emulator ? emulator->now_ns() : monotonic_ns();
            if (now >= target_ns) return true;
            const auto left = std::chrono::nanoseconds(target_ns - now);
            std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(left, poll));
        }
    } catch (const std::runtime_error&) {
        return false;
    }
}

} // namespace neuron::tools
