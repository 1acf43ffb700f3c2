// Figure 10: the conformance library on the model target, scenarios per
// second with -j N workers against the same library run one at a time
// (-j 1), both in this run. Every scenario starts its own emulator and
// mount; realtime scenarios wait on the wall clock, so workers overlap
// waiting as well as work.

#include "figures.h"
#include "support/measure.h"

#include "neuron/common/child_process.h"

#include <fmt/format.h>

#include <regex>
#include <stdexcept>
#include <sys/wait.h>

namespace neuron::bench {
namespace {

struct library_run {
    double scenarios = 0;
    double seconds = 0;
};

// The runner's summary: "110 scenarios: 110 passed, 0 failed, 0 skipped in 9.02s".
library_run run_library(const context& c, unsigned jobs) {
    common::child_process runner({c.conformance, "--target", "model", "--instance", "trn1.32xlarge", "--keep-going",
                                  "--quiet", "-j", std::to_string(jobs)},
                                 common::current_environment(), "/dev/null");
    const std::regex summary("^([0-9]+) scenarios: ([0-9]+) passed, 0 failed, [0-9]+ skipped in ([0-9.]+)s$");
    library_run r;
    while (const auto line = runner.read_line(std::chrono::minutes(10))) {
        std::smatch m;
        if (std::regex_match(*line, m, summary)) {
            r.scenarios = std::stod(m[1]);
            r.seconds = std::stod(m[3]);
        }
    }
    const auto status = runner.wait(std::chrono::minutes(1));
    if (!status || !WIFEXITED(*status) || WEXITSTATUS(*status) != 0 || r.scenarios == 0) {
        throw std::runtime_error(fmt::format("{} did not pass the library", runner.command()));
    }
    return r;
}

} // namespace

void conformance_throughput(const context& c) {
    constexpr unsigned jobs = 6;
    const auto serial = run_library(c, 1);
    const auto parallel = run_library(c, jobs);
    print({fmt::format("10 conformance library, -j {} against -j 1", jobs), parallel.scenarios / parallel.seconds,
           serial.scenarios / serial.seconds, "scenarios/s", goal::info, 0,
           fmt::format("{:.0f} scenarios on trn1.32xlarge: {:.2f} s at -j 1, {:.2f} s at -j {}; each with its own "
                       "emulator and mount",
                       serial.scenarios, serial.seconds, parallel.seconds, jobs)});
}

} // namespace neuron::bench
