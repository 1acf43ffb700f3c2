#pragma once

#include "neuron/conformance/scenario.h"

#include <string>
#include <string_view>

namespace neuron::conformance {

// Reads one scenario file (scenarios/README.md documents the format).
// Every error is a common::yaml_error "FILE:LINE:COLUMN: what is wrong",
// naming the offending key or value; unknown keys are refused with the
// closest valid one suggested.
scenario parse_scenario_file(const std::string& path);

// The same from text; `directory` is where model files named by the
// scenario are looked up.
scenario parse_scenario(std::string_view text, const std::string& source, const std::string& directory);

} // namespace neuron::conformance
