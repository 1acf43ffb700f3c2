#pragma once

#include "neuron/conformance/capability.h"
#include "neuron/conformance/duration.h"
#include "neuron/conformance/steps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron::conformance {

// A driver-release bound: ">= 2.17", "< 2.15", "== 2.24".
struct version_bound {
    enum class relation { less, less_equal, equal, greater_equal, greater };
    relation op = relation::greater_equal;
    std::uint16_t major = 0;
    std::uint16_t minor = 0;
    std::string str() const;
};

// Where a scenario applies; elsewhere it is skipped as not applicable.
struct applicability {
    std::vector<std::string> instances; // instance types or globs ("trn2*")
    std::vector<std::string> devices;   // device_name values: Inferentia, Inferentia2, Trainium1, Trainium2
    std::vector<int> arch;              // the driver's hardware layer: 1 (Inf1), 2 (Trn1, Inf2), 3 (Trn2)
    std::vector<version_bound> driver;  // every bound must hold
};

enum class time_mode { stepped, realtime };

// How the target is set up before the steps.
struct scenario_setup {
    std::optional<std::string> instance;       // the model target serves this one
    std::optional<std::string> driver_version; // and this release
    time_mode time = time_mode::stepped;
    double rtf = 1;
    std::uint64_t seed = 0;
    std::optional<bool> notify; // notify_delay written 0 (on) or -1 (off) first
    // The driver never had this instance on this release: the emulator must
    // refuse to serve it, saying why (a host cannot be such a target).
    bool refused = false;
};

struct scenario {
    std::string file; // as given to the runner
    std::string name; // unique in a run: "counters/write_clears_total"
    std::string description;
    std::vector<std::string> tags;
    capability_set requires_;
    applicability applies_to;
    scenario_setup setup;
    std::optional<nanoseconds> timeout;
    std::map<std::string, std::string> models; // name -> model-file text, written to the scenario's directory
    step_list steps;

    // The folder part of the name ("counters"), for reports.
    std::string group() const;
};

} // namespace neuron::conformance
