// Recordings of a sysfs tree (recording/include/neuron/recording/recording_file.h):
// any bytes to read_recording, as `neuron-conformance diff` and replay read
// a file someone hands them. A yaml_error is the expected answer to bad
// input; anything else escaping, a crash, a hang or a blow-up of memory is
// a finding, and so is a recording that does not read back as itself once
// written, or that diff does not find equal to itself. What reads is then
// planned for replay (serve --from) on one instance and release, where a
// recording_error is the expected refusal. Seeds: corpus/recording/.
//
// An input whose first line is "#expand ESVPC" is also grown to a recording
// at the limits (recording_expansion.h): one within every limit must read
// back as written and plan, one past a limit must be refused, by the reader
// or (the replay's changes) by the plan. The entries' and the changes'
// limits, which take minutes per input here, only with
// NEURON_FUZZ_RECORDING_LIMITS=all in the environment.

#include "recording_expansion.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/recording/recording_file.h"
#include "neuron/recording/replay_plan.h"
#include "neuron/recording/tree_diff.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using namespace neuron::recording;

[[noreturn]] void finding(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "recording_fuzzer: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}

// Named, so that no input costs a tree per catalogued instance and release.
void plan(const tree_recording& r, bool past_the_replay_limit) {
    try {
        const auto p = plan_replay(r, {"trn1.2xlarge", "2.24", 0});
        if (past_the_replay_limit) finding("a replay past its limit of changes is planned");
        if (p.counts.modelled + p.counts.as_recorded > r.entries.size()) {
            finding("a replay serves more files than were recorded");
        }
    } catch (const recording_error& e) {
        const std::string why = e.what();
        if (!past_the_replay_limit && why.find("a replay holds at most") != std::string::npos) {
            finding("a replay within its limit of changes is refused", why);
        }
    }
}

void round_trip(const tree_recording& r) {
    const auto again = read_recording(write_recording(r), "written.yaml");
    if (!(again == r)) finding("a recording does not read back as written");
    if (!diff_recordings(r, again).empty()) finding("diff finds a recording unlike itself");
}

bool slow_dimensions() {
    static const bool all = [] {
        const char* limits = std::getenv("NEURON_FUZZ_RECORDING_LIMITS");
        return limits != nullptr && std::string_view(limits) == "all";
    }();
    return all;
}

void expanded(std::string_view text) {
    const auto x = neuron::fuzz::expand(text, slow_dimensions());
    if (!x) return;
    tree_recording r;
    try {
        r = read_recording(write_recording(x->recording), "expanded.yaml");
    } catch (const neuron::common::yaml_error& e) {
        if (!x->past_a_read_limit) finding("a recording within the limits is refused", e.what());
        return;
    }
    if (x->past_a_read_limit) finding("a recording past a limit reads");
    if (!(r == x->recording)) finding("an expanded recording does not read back as written");
    if (!diff_recordings(r, x->recording).empty()) finding("diff finds an expanded recording unlike itself");
    plan(r, x->past_the_replay_limit);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    expanded(text);
    tree_recording r;
    try {
        r = read_recording(text, "fuzz.yaml");
    } catch (const neuron::common::yaml_error&) {
        return 0;
    }
    round_trip(r);
    plan(r, false);
    return 0;
}
