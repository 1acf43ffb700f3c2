#pragma once

#include "neuron/recording/tree_recording.h"

#include <string>
#include <string_view>

// A recording as a YAML file (docs/recording-format.md): what `record`
// writes and `diff` and `serve --from` read.
namespace neuron::recording {

inline constexpr std::uint64_t recording_format_version = 1;

std::string write_recording(const tree_recording& r);

// Throws common::yaml_error "source:line:column: what is wrong" for a file
// that is not a recording, a version it does not know, a bad or missing
// field, entries out of order or twice, samples that do not match the
// counters.
tree_recording read_recording(std::string_view text, const std::string& source);

} // namespace neuron::recording
