#pragma once

#include "neuron/conformance/scenario.h"
#include "neuron/conformance/scenario_outcome.h"

#include <cstdio>
#include <string>
#include <vector>

namespace neuron::conformance {

struct report_entry {
    const scenario* what = nullptr;
    scenario_outcome outcome;
    std::string repro;  // the command that runs just this scenario again
    std::string target; // which of several targets it ran on ("trn1.2xlarge 2.24.7.0"); empty with one

    // "counters/x", or "counters/x [trn1.2xlarge 2.24.7.0]" with a target.
    std::string label() const;
};

// One line per scenario as it ends; a failure adds its step, reason, what the
// programs said and the repro command, indented below.
void print_entry(std::FILE* out, const report_entry& e);

// "41 scenarios: 38 passed, 1 failed, 2 skipped in 12.34s", and the slowest.
void print_summary(std::FILE* out, const std::vector<report_entry>& entries, nanoseconds total);

// The run as JUnit XML (a testsuite per scenario folder; a skipped scenario
// carries <skipped message=...>, a failed one <failure message=...>).
std::string junit_xml(const std::vector<report_entry>& entries, const std::string& target_name, nanoseconds total);

// Text made safe for an XML attribute or element.
std::string xml_escape(std::string_view text);

} // namespace neuron::conformance
