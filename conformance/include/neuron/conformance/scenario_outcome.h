#pragma once

#include "neuron/conformance/duration.h"
#include "neuron/conformance/steps.h"

#include <optional>
#include <string>

namespace neuron::conformance {

enum class verdict { pass, fail, skip };

std::string_view verdict_name(verdict v); // PASS, FAIL, SKIP

// What became of one scenario.
struct scenario_outcome {
    verdict result = verdict::pass;
    std::string reason;  // why it failed or was skipped
    std::string where;   // the failing step's FILE:LINE:COLUMN
    std::string step;    // the failing step, described
    std::string details; // what the emulator and the programs said (failures)
    nanoseconds duration{0};
};

} // namespace neuron::conformance
