// Conformance scenarios: any bytes, parsed as neuron-conformance parses a
// scenario file (with the model files its steps name looked up beside the
// shipped runtime scenarios, so `../models/add.yaml` resolves). Every error
// must be a yaml_error (conformance/scenario_parser.h); anything else
// escaping, a crash, a hang or a blow-up of memory is a finding.

#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/scenario_parser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        (void)neuron::conformance::parse_scenario(text, "fuzz/scenario.yaml", NEURON_SCENARIO_DIR "/runtime");
    } catch (const neuron::common::yaml_error&) {}
    return 0;
}
