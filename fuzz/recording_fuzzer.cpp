// Recordings of a sysfs tree (recording/include/neuron/recording/recording_file.h):
// any bytes to read_recording, as `neuron-conformance diff` and replay read
// a file someone hands them. A yaml_error is the expected answer to bad
// input; anything else escaping, a crash, a hang or a blow-up of memory is
// a finding, and so is a recording that does not read back as itself once
// written, or that diff does not find equal to itself. What reads is then
// planned for replay (serve --from) on one instance and release, where a
// recording_error is the expected refusal. Seeds: corpus/recording/.

#include "neuron/common/yaml_fields.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/replay_plan.h"
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
    // Named, so that no input costs a tree per catalogued instance and release.
    try {
        const auto plan = plan_replay(r, {"trn1.2xlarge", "2.24", 0});
        if (plan.counts.modelled + plan.counts.as_recorded > r.entries.size()) {
            std::fprintf(stderr, "recording_fuzzer: a replay serves more files than were recorded\n");
            std::abort();
        }
    } catch (const recording_error&) {}
    return 0;
}
