#pragma once

// A tree served by `neuron-emu serve` (stepped, so its counters hold still)
// for the life of the object, and a recording of any tree taken in the test.

#include "process_harness.h"

#include "neuron/recording/tree_recording.h"

#include <algorithm>
#include <csignal>
#include <string>
#include <vector>

namespace neuron::cli::testing {

inline void require_mount() { test_support::require_fuse_mount("serving a tree"); }

struct served {
    // `how`: --instance and --driver-version, or --from and what goes with it.
    served(const temp_dir& tmp, const std::vector<std::string>& how, const std::string& name = "mnt")
            : mount(tmp / name), process(arguments(how, mount), {.stderr_path = tmp / (name + ".stderr")}) {
        process.require_ready();
    }
    served(const temp_dir& tmp, const std::string& instance, const std::string& release,
           const std::string& name = "mnt")
            : served(tmp, {"--instance", instance, "--driver-version", release}, name) {}
    ~served() {
        process.signal(SIGTERM);
        process.require_exit(0);
    }
    static std::vector<std::string> arguments(const std::vector<std::string>& how, const std::string& mount) {
        std::vector<std::string> args{"serve"};
        args.insert(args.end(), how.begin(), how.end());
        for (const auto* a : {"--mount", mount.c_str(), "--time", "stepped"}) args.emplace_back(a);
        if (std::find(how.begin(), how.end(), "--control") == how.end()) {
            args.emplace_back("--control");
            args.emplace_back("none");
        }
        return args;
    }
    std::string mount;
    emulator process;
};

// The tree at `root` recorded now, in this process.
inline recording::tree_recording live(const std::string& root, const std::string& release = {}) {
    recording::record_options o;
    o.root = root;
    o.module_version.clear();
    auto r = recording::record_tree(o);
    r.driver_release = release;
    return r;
}

} // namespace neuron::cli::testing
