// Recordings of a sysfs tree (recording/include/neuron/recording/recording_file.h):
// any bytes to read_recording, as `neuron-conformance diff` and replay read
// a file someone hands them. A yaml_error is the expected answer to bad
// input; anything else escaping, a crash, a hang or a blow-up of memory is
// a finding, and so is a recording that does not read back as itself once
// written, or that diff does not find equal to itself. Seeds: corpus/recording/.

#include "neuron/common/yaml_fields.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/tree_diff.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace neuron::recording;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    tree_recording r;
    try {
        r = read_recording(text, "fuzz.yaml");
    } catch (const neuron::common::yaml_error&) {
        return 0;
    }
    const auto again = read_recording(write_recording(r), "written.yaml");
    if (!(again == r)) {
        std::fprintf(stderr, "recording_fuzzer: a recording does not read back as written\n");
        std::abort();
    }
    if (!diff_recordings(r, again).empty()) {
        std::fprintf(stderr, "recording_fuzzer: diff finds a recording unlike itself\n");
        std::abort();
    }
    return 0;
}
