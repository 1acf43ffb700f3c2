#pragma once

#include "neuron/conformance/scenario.h"

#include <span>
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

// The keys a scenario, its applies_to and its setup may have.
std::span<const std::string_view> scenario_keys();
std::span<const std::string_view> applies_to_keys();
std::span<const std::string_view> setup_keys();

// The scenario format as a JSON Schema (draft 2020-12): every key of a
// scenario and of each step, the actions and the capabilities, generated
// from the tables the parser reads with. Values are checked by the parser
// (and its FILE:LINE:COLUMN errors), not here.
std::string scenario_schema();

} // namespace neuron::conformance
