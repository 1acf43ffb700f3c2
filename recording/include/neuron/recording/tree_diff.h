#pragma once

#include "neuron/recording/tree_recording.h"

#include <cstddef>
#include <string>
#include <vector>

namespace neuron::recording {

// What differs between two recordings of a tree, in groups:
// identity (release, instance type, device count), structure (entries only
// in one, of another type), modes, links (targets), reads (a value on one
// side, an errno on the other, or two errnos), values (of files that are
// not counters) and formats (of counters: their values with every number
// as N; with `values`, their values themselves). When both list the
// machine's identity files, they are compared as entries "dmi/id/NAME", the
// per-machine ids, serials and UUIDs by shape (each hex digit as X) unless
// `values`.
struct diff_options {
    bool values = false;
};

struct difference {
    std::string group; // "identity", "structure", "modes", "links", "reads", "values", "formats"
    std::string path;  // the entry, or the identity field
    std::string a, b;  // each side, as text
};

std::vector<difference> diff_recordings(const tree_recording& a, const tree_recording& b,
                                        const diff_options& options = {});

// The differences for a person: per group its count, then per kind of
// difference the paths with device and core numbers as '*' and how many
// each stands for, at most `shown` lines per group.
std::string format_differences(const std::vector<difference>& differences, std::size_t shown = 20);

// A value with every run of digits as "N": what a counter's format is.
std::string number_shape(std::string_view value);

} // namespace neuron::recording
