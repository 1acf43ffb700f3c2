#include "neuron/test_support/run_to_end.h"

#include "neuron/test_support/slurp.h"
#include "neuron/test_support/wait_status.h"

#include <fmt/format.h>

#include <stdexcept>

namespace neuron::test_support {

run_result run_to_end(spawn_options options, const std::string& directory, milliseconds timeout) {
    if (options.output.how() != stream_target::kind::inherited ||
        options.error.how() != stream_target::kind::inherited) {
        throw std::logic_error("run_to_end keeps stdout and stderr itself");
    }
    const auto out = directory + "/run-stdout";
    const auto err = directory + "/run-stderr";
    options.output = stream_target::file(out);
    options.error = stream_target::file(err);
    spawned_process process(std::move(options));
    const auto raw = process.wait(timeout);
    if (!raw) {
        throw std::runtime_error(
            fmt::format("'{}' did not end within {} ms; stderr:\n{}", process.command(), timeout.count(), slurp(err)));
    }
    return {exit_status_of(*raw), signal_of(*raw), slurp(out), slurp(err)};
}

} // namespace neuron::test_support
