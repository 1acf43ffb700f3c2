#pragma once

#include "neuron/test_support/spawned_process.h"

#include <string>

namespace neuron::test_support {

// What a command that ran to its end left.
struct run_result {
    int status = -1; // its exit status; -1 when a signal ended it
    int signal = 0;  // the signal that ended it, or 0
    std::string out;
    std::string err;
};

// Runs a command to its end with its stdout and stderr in the files
// run-stdout and run-stderr of `directory` (`options` leave them inherited),
// and returns them byte for byte. Throws std::runtime_error when it cannot
// start or has not ended within the timeout (then it is killed).
run_result run_to_end(spawn_options options, const std::string& directory, milliseconds timeout);

} // namespace neuron::test_support
