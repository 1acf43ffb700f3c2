#pragma once

// The recording fuzzer's second mode: a small input grown to a recording at
// the limits a reader states (recording/include/neuron/recording/
// tree_recording.h, README "Limits"), which no mutation of a few kilobytes
// reaches by itself. An input whose first line is
//
//     #expand ESVPC
//
// (a YAML comment, so the rest reads as a recording as it is) is expanded
// per dimension, each letter a digit: 0 leaves it as it is, 1 puts it one
// below its limit, 2 at it, 3 one past it.
//
//   E  entries (1 000 000)                                          slow
//   S  samples (10 000), over the recording's counters (one is added if none)
//   V  a file's value (64 KiB) and a sampled value (256 KiB; not with C)
//   P  a path (4096 bytes) and a name in it (255)
//   C  sampled changes a replay holds (4 000 000: 400 counters moving in
//      10 000 samples; S is then not used)                           slow
//
// Any other character is read as its byte modulo 4. The recording's own
// counters and samples give way to the expansion's. The slow dimensions
// (minutes per input under the sanitizers, 2 GB) count only when
// `slow_dimensions` says so; else they are left as they are.

#include "neuron/recording/tree_recording.h"

#include <optional>
#include <string_view>

namespace neuron::fuzz {

struct expansion {
    recording::tree_recording recording;
    bool past_a_read_limit = false;     // a reader must refuse it
    bool past_the_replay_limit = false; // plan_replay must refuse it
};

// The expansion `text` asks for, or nothing when it asks for none.
std::optional<expansion> expand(std::string_view text, bool slow_dimensions);

} // namespace neuron::fuzz
