#define BOOST_TEST_MODULE isolated_run
#include "neuron/conformance/isolated_run.h"
#include "neuron/conformance/scenario_parser.h"

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/prctl.h>

using namespace neuron::conformance;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace harness = neuron::cli::testing;

namespace {

// A private TMPDIR, so that what a run leaves behind can be seen.
struct private_tmp {
    harness::temp_dir dir{"conformance-isolated"};
    private_tmp() {
        ::setenv("TMPDIR", dir.path().c_str(), 1);
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    }
    ~private_tmp() { ::unsetenv("TMPDIR"); }
    std::vector<std::string> left() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir.path())) {
            if (e.path().filename() != "tree") names.push_back(e.path().filename().string());
        }
        return names;
    }
};

// A one-device Trainium1 tree of plain files.
std::string make_tree(const private_tmp& tmp) {
    const auto root = tmp.dir / "tree";
    fs::create_directories(root + "/neuron0/info/architecture");
    fs::create_directories(root + "/neuron0/neuron_core0");
    std::ofstream(root + "/neuron0/info/architecture/device_name") << "Trainium1\n";
    std::ofstream(root + "/neuron0/core_count") << "2";
    return root;
}

scenario parse(const std::string& text) { return parse_scenario(text, "s.yaml", "."); }

const tool_paths tools{NEURON_EMU_BINARY, "/nonexistent/nrt-session", "/nonexistent"};

} // namespace

BOOST_FIXTURE_TEST_CASE(a_passing_scenario_passes_and_leaves_nothing, private_tmp) {
    const auto target = detect_sysfs_target(make_tree(*this), std::nullopt, "2.24");
    const auto s = parse("name: t\nsteps:\n  - read: neuron0/core_count\n    expect: {equals: \"2\"}\n");
    const auto outcome = run_isolated(s, target, tools, 10s);
    BOOST_TEST(verdict_name(outcome.result) == "PASS", outcome.reason);
    BOOST_TEST(left().empty());
}

BOOST_FIXTURE_TEST_CASE(a_failing_step_is_named_with_its_position, private_tmp) {
    const auto target = detect_sysfs_target(make_tree(*this), std::nullopt, "2.24");
    const auto s = parse("name: t\nsteps:\n  - read: neuron0/core_count\n  - for_each: {d: devices}\n    do:\n"
                         "      - read: neuron{d}/core_count\n        expect: {equals: \"3\"}\n");
    const auto outcome = run_isolated(s, target, tools, 10s);
    BOOST_TEST(verdict_name(outcome.result) == "FAIL");
    BOOST_TEST(outcome.reason == R"(expected "3", got "2")");
    BOOST_TEST(outcome.step == "read neuron0/core_count");
    BOOST_TEST(outcome.where == "s.yaml:6:9");
    BOOST_TEST(left().empty());
}

BOOST_FIXTURE_TEST_CASE(a_loop_over_an_empty_set_fails_rather_than_checking_nothing, private_tmp) {
    // The tree's neuron0 has no neuron_coreK directories at all.
    const auto root = make_tree(*this);
    fs::remove_all(root + "/neuron0/neuron_core0");
    const auto target = detect_sysfs_target(root, std::nullopt, "2.24");
    const auto s = parse("name: t\nsteps:\n  - for_each: {c: cores}\n    do:\n"
                         "      - read: neuron0/neuron_core{c}/x\n");
    const auto outcome = run_isolated(s, target, tools, 10s);
    BOOST_TEST(verdict_name(outcome.result) == "FAIL");
    BOOST_TEST(outcome.reason == "the set 'cores' is empty on this target: nothing to check");
}

BOOST_FIXTURE_TEST_CASE(a_hanging_step_is_cut_off_at_the_timeout, private_tmp) {
    const auto target = detect_sysfs_target(make_tree(*this), std::nullopt, "2.24");
    const auto s =
        parse("name: t\nsteps:\n  - read: neuron0/core_count\n    expect: {equals: \"3\"}\n    within: 1000s\n");
    const auto started = std::chrono::steady_clock::now();
    const auto outcome = run_isolated(s, target, tools, 500ms);
    BOOST_TEST(verdict_name(outcome.result) == "FAIL");
    BOOST_TEST(outcome.reason == "timed out after 500ms in this step");
    BOOST_TEST(outcome.step == "read neuron0/core_count");
    BOOST_TEST(outcome.where == "s.yaml:3:5");
    BOOST_TEST((std::chrono::steady_clock::now() - started < 20s));
    BOOST_TEST(left().empty());
}

BOOST_FIXTURE_TEST_CASE(an_emulator_that_hangs_is_killed_and_its_mount_detached, private_tmp) {
    neuron::test_support::require_fuse_mount("the model target");
    auto target = describe_model_target("trn1.2xlarge", "2.24");
    // Stepped time: the reset never completes, so the read waits until the timeout.
    const auto s = parse("name: t\nrequires: [root]\nsteps:\n  - write: neuron0/reset\n    value: \"1\"\n"
                         "  - read: neuron0/reset\n    expect: {equals: \"1\\n\"}\n    within: 1000s\n");
    const auto outcome = run_isolated(s, target, tools, 2s);
    BOOST_TEST(outcome.reason == "timed out after 2s in this step");
    BOOST_TEST(outcome.step == "read neuron0/reset");
    BOOST_TEST(left().empty(), "left behind in " << dir.path());
    BOOST_TEST(harness::fs_types_at(dir.path()).empty());
    std::ifstream mounts("/proc/self/mountinfo");
    std::string line;
    while (std::getline(mounts, line)) BOOST_TEST(line.find(dir.path()) == std::string::npos, line);
}

BOOST_FIXTURE_TEST_CASE(a_loop_value_cannot_lead_a_write_out_of_the_tree, private_tmp) {
    // The parser refuses '..' written in a path; a for_each value is checked when the step runs.
    const auto root = make_tree(*this);
    const auto target = detect_sysfs_target(root, std::nullopt, "2.24");
    const auto s = parse("name: t\nsteps:\n  - for_each: {p: [\"../outside\"]}\n    do:\n"
                         "      - write: \"{p}\"\n        value: x\n");
    const auto outcome = run_isolated(s, target, tools, 10s);
    BOOST_TEST(verdict_name(outcome.result) == "FAIL");
    BOOST_TEST(outcome.reason == "a path stays inside the tree: '..' is not allowed in '../outside'");
    BOOST_TEST(!fs::exists(dir / "outside"));
}
