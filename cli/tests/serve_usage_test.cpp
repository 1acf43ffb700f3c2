#define BOOST_TEST_MODULE serve_usage
// `neuron-emu serve` with a command line it refuses: exit 2, one line on
// stderr naming the problem, nothing mounted or created. Refused before
// anything mounts, these cases need neither root nor FUSE.
//
// Each case runs in a private directory under /tmp, removed even when the case
// fails; every process a case starts is killed and reaped if the case did not
// reap it.

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>
#include <string>
#include <vector>

using namespace neuron::cli::testing;

namespace {

void check_usage_error(const std::vector<std::string>& args, std::initializer_list<std::string> messages) {
    temp_dir tmp("serve");
    std::vector<std::string> full{"serve"};
    for (const auto& a : args) {
        full.push_back(a == "DIR" ? tmp / "mnt" : a == "DIR2" ? tmp / "tree" : a);
    }
    const auto r = run_to_end(tmp, full);
    BOOST_TEST(r.status == 2, command_line(full) << "\n" << r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(r.err.starts_with("neuron-emu: "), r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, "not one line: " << r.err);
    for (const auto& message : messages) BOOST_TEST(contains(r.err, message), "'" << message << "' not in: " << r.err);
    BOOST_TEST(stat_errno(tmp / "mnt") == ENOENT, "created the mount point despite the error");
    BOOST_TEST(stat_errno(tmp / "tree") == ENOENT, "created the tree despite the error");
}

} // namespace

BOOST_AUTO_TEST_CASE(usage_error_without_mount_or_materialize) {
    check_usage_error({"--time", "stepped"}, {"give exactly one of --mount DIR and --materialize DIR"});
}

BOOST_AUTO_TEST_CASE(usage_error_with_both_mount_and_materialize) {
    check_usage_error({"--mount", "DIR", "--materialize", "DIR2"},
                      {"give exactly one of --mount DIR and --materialize DIR"});
}

BOOST_AUTO_TEST_CASE(usage_error_unknown_time_mode) {
    check_usage_error({"--mount", "DIR", "--time", "sometimes"}, {"--time 'sometimes' is not a time mode"});
}

BOOST_AUTO_TEST_CASE(usage_error_zero_real_time_factor) {
    check_usage_error({"--mount", "DIR", "--rtf", "0"},
                      {"--rtf '0' is out of range: the real-time factor must be between 0.001 and 10"});
}

// Beyond 10, SystemC's time limit (213.5 days of simulated time) would come
// within 21 days of serving; below 0.001 time all but stands still.
BOOST_AUTO_TEST_CASE(usage_error_real_time_factor_out_of_range) {
    for (const auto* rtf : {"10.001", "1e12", "0.0009", "-1", "1e-300"}) {
        BOOST_TEST_CONTEXT("--rtf " << rtf) {
            check_usage_error(
                {"--mount", "DIR", "--rtf", rtf},
                {fmt::format("--rtf '{}' is out of range: the real-time factor must be between 0.001 and 10", rtf)});
            check_usage_error({"--materialize", "DIR2", "--rtf", rtf}, {"the real-time factor must be between"});
        }
    }
}

BOOST_AUTO_TEST_CASE(usage_error_real_time_factor_not_a_number) {
    check_usage_error({"--mount", "DIR", "--rtf", "nan"}, {"--rtf"});
}

BOOST_AUTO_TEST_CASE(usage_error_unknown_driver_version_lists_known_ones) {
    check_usage_error({"--mount", "DIR", "--driver-version", "2.26"},
                      {"unknown driver version '2.26'", "2.7.15.0", "2.24.7.0", "2.25.4.0"});
}

BOOST_AUTO_TEST_CASE(usage_error_trainium2_needs_driver_2_16) {
    check_usage_error({"--instance", "trn2.48xlarge", "--driver-version", "2.15", "--mount", "DIR"}, {"2.16"});
}

BOOST_AUTO_TEST_CASE(usage_error_whole_tree_goes_with_mount) {
    check_usage_error({"--materialize", "DIR", "--whole-tree"}, {"--whole-tree goes with --mount DIR"});
}

BOOST_AUTO_TEST_CASE(usage_error_misspelt_option_suggests_mount) {
    check_usage_error({"--mout", "DIR"}, {"unknown option '--mout'; did you mean '--mount'?"});
}
