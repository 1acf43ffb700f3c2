#pragma once

#include "neuron/conformance/scenario.h"

#include <string>
#include <vector>

namespace neuron::conformance {

// Every *.yaml scenario file under the paths (files, or folders searched
// recursively; model files under a folder named `models` are not
// scenarios), parsed, in path order. Throws common::yaml_error for the first
// file that is not a valid scenario, and for two scenarios with one name.
std::vector<scenario> load_scenarios(const std::vector<std::string>& paths);

// The scenarios whose name contains or (with * ? [...]) matches `filter`,
// and that have one of `tags` (when any are given).
std::vector<const scenario*> select_scenarios(const std::vector<scenario>& all, const std::string& filter,
                                              const std::vector<std::string>& tags);

} // namespace neuron::conformance
