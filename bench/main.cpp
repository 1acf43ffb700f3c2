// neuron-bench [--quick] [FIGURE...]: the emulator's costs against their
// baselines, measured side by side (bench/RESULTS.md has the latest run).

#include "figures.h"
#include "support/floor_process.h"
#include "support/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <functional>
#include <map>
#include <unistd.h>

namespace {

std::string own_directory() {
    char buffer[4096];
    const auto n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return std::filesystem::path(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0)).parent_path().string();
}

} // namespace

int main(int argc, char** argv) {
    using namespace neuron::bench;
    if (argc == 3 && std::string(argv[1]) == "floor-fs") return floor_fs_main(argv[2]);
    const std::vector<std::pair<std::string, std::function<void(const context&)>>> figures{
        {"attribute-read", attribute_read},
        {"scrape", full_scrape},
        {"wake", change_to_wake},
        {"debug-stream", debug_stream},
        {"control", control_round_trip},
        {"serve", serve_lifecycle},
        {"load", load},
        {"simulation", simulation_speed},
        {"soak", soak},
        {"conformance", conformance_throughput},
        {"profile", profile_speed},
        {"recording", recording_scale},
    };
    context c;
    const auto bin = own_directory();
    c.emulator = bin + "/neuron-emu";
    c.run_model = bin + "/nrt-run-model";
    c.conformance = bin + "/neuron-conformance";
    c.library = std::filesystem::path(bin).parent_path().string() + "/lib";
    c.models = NEURON_MODELS_DIR;
    std::vector<std::string> selected;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            c.quick = true;
        } else if (arg == "--help" || arg == "-h") {
            fmt::print("usage: neuron-bench [--quick] [FIGURE...]\nfigures:");
            for (const auto& [name, run] : figures) fmt::print(" {}", name);
            fmt::print("\n");
            return 0;
        } else {
            selected.push_back(arg);
        }
    }
    for (const auto& s : selected) {
        if (std::none_of(figures.begin(), figures.end(), [&](const auto& f) { return f.first == s; })) {
            fmt::print(stderr, "neuron-bench: unknown figure '{}' (see --help)\n", s);
            return 2;
        }
    }
    if (::geteuid() != 0 || ::access("/dev/fuse", R_OK | W_OK) != 0) {
        fmt::print(stderr, "neuron-bench: needs root and /dev/fuse (it mounts FUSE trees)\n");
        return 77;
    }
    std::signal(SIGPIPE, SIG_IGN);
    for (const auto& [name, run] : figures) {
        if (!selected.empty() && std::find(selected.begin(), selected.end(), name) == selected.end()) continue;
        try {
            run(c);
        } catch (const std::exception& e) {
            print_unmeasured(name, e.what());
        }
    }
    return all_met() ? 0 : 1;
}
