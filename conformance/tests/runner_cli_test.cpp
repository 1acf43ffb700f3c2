#define BOOST_TEST_MODULE runner_cli
// neuron-conformance end to end: exit statuses, one-line scenario errors,
// selection, the text report and JUnit, and the same verdicts from a served
// tree as from the model.
#include "neuron/common/child_process.h"

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <sys/wait.h>

using neuron::common::child_process;
using neuron::common::current_environment;
namespace harness = neuron::cli::testing;

namespace {

struct result {
    int status = -1;
    std::string out;
    std::string err;
};

result run_runner(const harness::temp_dir& dir, std::vector<std::string> args) {
    args.insert(args.begin(), NEURON_CONFORMANCE_BINARY);
    child_process p(std::move(args), current_environment(), dir / "runner.stderr");
    result r;
    while (const auto line = p.read_line(std::chrono::minutes(15))) r.out += *line + "\n";
    const auto status = p.wait(std::chrono::minutes(1));
    BOOST_TEST_REQUIRE(status.has_value(), "the runner did not exit: " << p.command());
    r.status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
    r.err = p.err();
    return r;
}

std::string write(const harness::temp_dir& dir, const std::string& name, const std::string& text) {
    const auto path = dir / name;
    std::ofstream(path) << text;
    return path;
}

// name -> PASS, FAIL or SKIP, and the skip reasons, from the text report.
struct verdicts {
    std::map<std::string, std::string> of;
    std::map<std::string, std::string> skip_reason;
};

verdicts read_verdicts(const std::string& report) {
    verdicts v;
    const std::regex line("^(PASS|FAIL|SKIP)  (\\S+) +(.*)$");
    std::istringstream in(report);
    std::string text;
    while (std::getline(in, text)) {
        std::smatch m;
        if (!std::regex_match(text, m, line)) continue;
        v.of[m[2]] = m[1];
        if (m[1] == "SKIP") v.skip_reason[m[2]] = m[3];
    }
    return v;
}

// `neuron-emu serve --instance trn1.32xlarge` at DIR/mnt, its control socket
// at DIR/control.sock, once it is up. Scenarios read as other users too: the
// tree must be reachable and open to them.
std::unique_ptr<child_process> serve_tree(const harness::temp_dir& dir, const std::vector<std::string>& extra) {
    std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                                 std::filesystem::perms::group_exec |
                                                 std::filesystem::perms::others_read |
                                                 std::filesystem::perms::others_exec);
    std::vector<std::string> args{NEURON_EMU_BINARY, "serve",     "--instance",         "trn1.32xlarge", "--mount",
                                  dir / "mnt",       "--control", dir / "control.sock", "--allow-other"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto serve = std::make_unique<child_process>(std::move(args), current_environment(), dir / "serve.stderr");
    while (const auto line = serve->read_line(std::chrono::seconds(20))) {
        if (line->starts_with("neuron-emu: control socket")) break;
    }
    return serve;
}

void require_mount() { neuron::test_support::require_fuse_mount("the model target"); }

} // namespace

BOOST_AUTO_TEST_CASE(a_malformed_scenario_is_one_line_with_its_position_and_exit_2) {
    harness::temp_dir dir("conformance-cli");
    const auto file =
        write(dir, "bad.yaml", "name: bad\nsteps:\n  - read: neuron0/core_count\n    expct: {equals: \"2\"}\n");
    const auto r = run_runner(dir, {file});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err == fmt::format("neuron-conformance: {}:4:5: unknown key 'expct' in a read step; did you mean "
                                    "'expect'?\n",
                                    file));
    BOOST_TEST(r.out.empty());
}

BOOST_AUTO_TEST_CASE(bad_usage_is_exit_2) {
    harness::temp_dir dir("conformance-cli");
    const auto r = run_runner(dir, {"--keep-goin"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(r.err.find("did you mean '--keep-going'?") != std::string::npos, r.err);
    BOOST_TEST(run_runner(dir, {"--help"}).status == 0);
    BOOST_TEST(run_runner(dir, {dir / "missing.yaml"}).status == 2);
    BOOST_TEST(run_runner(dir, {"--instance", "trn9.xlarge", dir.path()}).status == 2);
}

BOOST_AUTO_TEST_CASE(the_library_lists_and_selects_by_tag_and_filter) {
    harness::temp_dir dir("conformance-cli");
    const auto all = run_runner(dir, {"--list"});
    BOOST_TEST(all.status == 0);
    const std::regex count("\n([0-9]+) scenarios\n$");
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(all.out, m, count), all.out);
    BOOST_TEST(std::stoi(m[1]) >= 40, "the library has " << m[1] << " scenarios");
    const auto reset = run_runner(dir, {"--list", "--tag", "reset"});
    BOOST_TEST(reset.out.find("reset/state_digit") != std::string::npos);
    BOOST_TEST(reset.out.find("identity/") == std::string::npos);
    const auto filtered = run_runner(dir, {"--list", "--filter", "identity/trn2*"});
    BOOST_TEST(filtered.out.find("identity/trn2.48xlarge") != std::string::npos);
    BOOST_TEST(filtered.out.find("identity/trn1") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(failures_stop_the_run_unless_keep_going_and_reach_junit) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto failing = write(dir, "a_fails.yaml",
                               "name: a_fails\nsteps:\n  - read: neuron0/core_count\n    expect: {equals: \"3\"}\n");
    const auto passing = write(dir, "b_passes.yaml",
                               "name: b_passes\nsteps:\n  - read: neuron0/core_count\n    expect: {equals: \"2\"}\n");
    const auto skipped =
        write(dir, "c_skips.yaml", "name: c_skips\napplies_to: {instances: [inf1.xlarge]}\nsteps: [{read: a}]\n");

    const auto stopped = run_runner(dir, {failing, passing});
    BOOST_TEST(stopped.status == 1);
    BOOST_TEST(read_verdicts(stopped.out).of.size() == 1u, stopped.out);

    const auto junit = dir / "results.xml";
    const auto all = run_runner(dir, {"--keep-going", "--junit", junit, failing, passing, skipped});
    BOOST_TEST(all.status == 1);
    const auto v = read_verdicts(all.out);
    BOOST_TEST(v.of.at("a_fails") == "FAIL");
    BOOST_TEST(v.of.at("b_passes") == "PASS");
    BOOST_TEST(v.of.at("c_skips") == "SKIP");
    BOOST_TEST(v.skip_reason.at("c_skips") == "applies to inf1.xlarge; the target is trn1.2xlarge");
    BOOST_TEST(all.out.find(fmt::format("      step read neuron0/core_count at {}:3:5\n", failing)) !=
                   std::string::npos,
               all.out);
    BOOST_TEST(all.out.find(fmt::format("--target model --instance trn1.2xlarge --driver-version 2.24.7.0 {}\n",
                                        failing)) != std::string::npos,
               all.out);
    BOOST_TEST(all.out.find("3 scenarios: 1 passed, 1 failed, 1 skipped") != std::string::npos, all.out);
    const auto xml = harness::slurp(junit);
    BOOST_TEST(xml.find(R"(tests="3" failures="1" skipped="1")") != std::string::npos, xml);
    BOOST_TEST(xml.find(R"(name="a_fails")") != std::string::npos);

    const auto ok = run_runner(dir, {passing, skipped});
    BOOST_TEST(ok.status == 0, ok.out);
}

// In an output directory every user may write, another user's link stands
// where --junit writes: the runner refuses (exit 1, the path named) and what
// the link points to (a file only root may write, say) stays as it was.
BOOST_AUTO_TEST_CASE(junit_is_not_written_through_a_planted_link) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto skipped =
        write(dir, "c_skips.yaml", "name: c_skips\napplies_to: {instances: [inf1.xlarge]}\nsteps: [{read: a}]\n");
    const auto victim = write(dir, "victim", "precious\n");
    const auto shared = dir / "shared";
    std::filesystem::create_directories(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    std::filesystem::create_symlink(victim, shared + "/results.xml");
    const auto r = run_runner(dir, {"--junit", shared + "/results.xml", skipped});
    BOOST_TEST(r.status == 1, r.out);
    BOOST_TEST(r.err ==
               "neuron-conformance: " + shared + "/results.xml: a symbolic link: refusing to write through it\n");
    BOOST_TEST(harness::slurp(victim) == "precious\n");
    BOOST_TEST(std::filesystem::is_symlink(shared + "/results.xml"));
}

// Runs on several workers are reported as a serial run reports them: same
// verdicts, same order.
BOOST_AUTO_TEST_CASE(parallel_runs_report_in_the_order_of_a_serial_run) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto names = [](const std::string& report) {
        std::vector<std::string> out;
        const std::regex line("^(PASS|FAIL|SKIP)  (\\S+) .*$");
        std::istringstream in(report);
        for (std::string text; std::getline(in, text);) {
            std::smatch m;
            if (std::regex_match(text, m, line)) out.push_back(std::string(m[1]) + " " + std::string(m[2]));
        }
        return out;
    };
    const auto serial = run_runner(dir, {"--tag", "counters", "--keep-going"});
    const auto parallel = run_runner(dir, {"--tag", "counters", "--keep-going", "-j", "3"});
    BOOST_TEST(serial.status == 0, serial.out);
    BOOST_TEST(parallel.status == 0, parallel.out);
    BOOST_TEST(names(serial.out).size() >= 10u);
    BOOST_TEST(names(parallel.out) == names(serial.out), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shards_split_the_runs_once_each) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    std::vector<std::string> files;
    for (int i = 0; i < 5; ++i) {
        files.push_back(
            write(dir, fmt::format("s{}.yaml", i),
                  fmt::format("name: s{}\nsteps:\n  - read: neuron0/core_count\n    expect: {{equals: \"2\"}}\n", i)));
    }
    std::map<std::string, int> seen;
    std::map<std::string, int> in_junit; // the shards' JUnit files together: each scenario once
    int shard_number = 0;
    for (const auto* shard : {"1/2", "2/2"}) {
        auto args = files;
        const auto junit = dir / fmt::format("shard{}.xml", ++shard_number);
        args.insert(args.begin(), {"--shard", shard, "-j", "2", "--junit", junit});
        const auto r = run_runner(dir, args);
        BOOST_TEST(r.status == 0, r.out);
        BOOST_TEST(r.out.find(fmt::format("(shard {})", shard)) != std::string::npos, r.out);
        for (const auto& [name, verdict] : read_verdicts(r.out).of) seen[name] += verdict == "PASS";
        const auto xml = harness::slurp(junit);
        const std::regex testcase("<testcase classname=\"[^\"]*\" name=\"([^\"]+)\"");
        for (auto it = std::sregex_iterator(xml.begin(), xml.end(), testcase); it != std::sregex_iterator(); ++it) {
            ++in_junit[(*it)[1]];
        }
    }
    BOOST_TEST(seen.size() == 5u);
    for (const auto& [name, count] : seen) BOOST_TEST(count == 1, name);
    BOOST_TEST(in_junit.size() == 5u);
    for (const auto& [name, count] : in_junit) BOOST_TEST(count == 1, name);
}

BOOST_AUTO_TEST_CASE(an_unknown_release_in_one_setup_fails_that_scenario_only) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto odd = write(dir, "a_odd.yaml",
                           "name: a_odd\nsetup: {driver_version: \"2.99\"}\nsteps: [{read: neuron0/core_count}]\n");
    const auto fine = write(dir, "b_fine.yaml",
                            "name: b_fine\nsetup: {driver_version: \"2.22\"}\nsteps: [{read: neuron0/core_count}]\n");
    const auto r = run_runner(dir, {"--keep-going", odd, fine});
    BOOST_TEST(r.status == 1);
    const auto v = read_verdicts(r.out);
    BOOST_TEST(v.of.at("a_odd") == "FAIL");
    BOOST_TEST(v.of.at("b_fine") == "PASS"); // 2.22 shows the tree of 2.21.37.0
    BOOST_TEST(r.out.find("its setup cannot be met: unknown driver version '2.99'") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(the_matrix_runs_a_scenario_on_every_instance_and_release) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto only = write(dir, "inf1.yaml",
                            "name: only_inf1\napplies_to: {instances: [inf1.xlarge], driver: \">= 2.24\"}\n"
                            "steps:\n  - read: neuron0/core_count\n    expect: {equals: \"4\"}\n");
    const auto r = run_runner(dir, {"--matrix", "--quiet", "-j", "2", only});
    BOOST_TEST(r.status == 0, r.out);
    BOOST_TEST(r.out.find("14 instance types x 17 driver releases: 238 runs") != std::string::npos, r.out);
    // inf1.xlarge on 2.24 passes; 2.25 dropped Inferentia; everything else does not apply.
    BOOST_TEST(r.out.find("238 scenarios: 1 passed, 0 failed, 237 skipped") != std::string::npos, r.out);
    const auto loud = run_runner(dir, {"--matrix", "-j", "2", only});
    BOOST_TEST(loud.out.find("PASS  only_inf1 [inf1.xlarge 2.24.7.0]") != std::string::npos, loud.out);
}

// The issue's acceptance: a served mount as the sysfs target gives the model
// target's verdict for every scenario that needs no control, and skips the
// rest with a reason that says what it needed.
BOOST_AUTO_TEST_CASE(a_served_tree_gives_the_model_verdicts_where_no_control_is_needed) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto on_model = run_runner(dir, {"--target", "model", "--instance", "trn1.32xlarge", "--keep-going"});
    BOOST_TEST(on_model.status == 0, on_model.out);

    auto serve = serve_tree(dir, {});
    const auto on_tree = run_runner(dir, {"--sysfs-root", dir / "mnt", "--driver-version", "2.24", "--keep-going"});
    serve->signal(SIGTERM);
    BOOST_TEST(serve->wait(std::chrono::seconds(20)).value_or(-1) == 0, serve->err());
    BOOST_TEST(on_tree.status == 0, on_tree.out);

    const auto model = read_verdicts(on_model.out);
    const auto tree = read_verdicts(on_tree.out);
    BOOST_TEST(model.of.size() >= 40u);
    BOOST_TEST(tree.of.size() == model.of.size());
    std::size_t ran_on_tree = 0;
    for (const auto& [name, verdict] : model.of) {
        const auto it = tree.of.find(name);
        BOOST_TEST_REQUIRE((it != tree.of.end()), name << " did not run on the tree");
        if (it->second == "SKIP" && verdict != "SKIP") {
            const auto& why = tree.skip_reason.at(name);
            // What only an emulator can do, or a setup no host can be.
            const bool needs_control = why.starts_with("needs ") || why.starts_with("set up for ") ||
                                       why.starts_with("set up as a combination the driver refuses");
            BOOST_TEST(needs_control, name << " skipped on the tree for another reason: " << why);
            continue;
        }
        BOOST_TEST(it->second == verdict, name << ": " << it->second << " on the tree, " << verdict << " on the model");
        ran_on_tree += it->second == "PASS";
    }
    BOOST_TEST(ran_on_tree >= 10u, "only " << ran_on_tree << " scenarios ran on the tree");
}

// With the serving emulator's control socket, a sysfs target runs the
// scenarios that inject, move stepped time or run libnrt; a fresh instance
// it still cannot promise.
BOOST_AUTO_TEST_CASE(a_served_tree_with_its_control_socket_runs_what_needs_the_emulator) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    auto serve = serve_tree(dir, {"--driver-version", "2.21", "--time", "stepped"});
    const auto ecc = write(dir, "ecc.yaml",
                           "name: ecc\nrequires: [inject_ecc]\nsteps:\n"
                           "  - inject_ecc: {device: 1, kind: sram, count: 2}\n"
                           "  - read: neuron1/stats/hardware/sram_ecc_uncorrected\n    expect: {number: 2}\n");
    const auto runtime = write(dir, "runtime.yaml",
                               "name: runtime\nrequires: [runtime]\nsteps:\n"
                               "  - nrt_init: app\n    env: {NEURON_RT_VISIBLE_CORES: \"0\"}\n"
                               "  - exit: app\n");
    const auto time = write(dir, "time.yaml", "name: time\nrequires: [time_control]\nsteps: [{advance: 1s}]\n");
    const auto fresh =
        write(dir, "fresh.yaml", "name: fresh\nrequires: [fresh_instance]\nsteps: [{read: neuron0/core_count}]\n");
    const auto r = run_runner(dir, {"--sysfs-root", dir / "mnt", "--control", dir / "control.sock", "--keep-going", ecc,
                                    runtime, time, fresh});
    const auto without = run_runner(dir, {"--sysfs-root", dir / "mnt", "--keep-going", ecc});
    const auto nobody = run_runner(dir, {"--sysfs-root", dir / "mnt", "--control", dir / "nothing.sock", ecc});
    serve->signal(SIGTERM);
    BOOST_TEST(serve->wait(std::chrono::seconds(20)).value_or(-1) == 0, serve->err());
    BOOST_TEST(r.status == 0, r.out);
    // The instance and the release came from the emulator.
    BOOST_TEST(r.out.find("(trn1.32xlarge, driver 2.21.37.0)") != std::string::npos, r.out);
    const auto v = read_verdicts(r.out);
    BOOST_TEST(v.of.at("ecc") == "PASS");
    BOOST_TEST(v.of.at("runtime") == "PASS");
    BOOST_TEST(v.of.at("time") == "PASS");
    BOOST_TEST(v.of.at("fresh") == "SKIP");
    BOOST_TEST(read_verdicts(without.out).of.at("ecc") == "SKIP");
    BOOST_TEST(nobody.status == 2);
    BOOST_TEST(nobody.err.find("no emulator answers there") != std::string::npos, nobody.err);
}

// A setup the driver never had is asserted as refused: the emulator must
// refuse to serve it; asserting it of a pair the driver has fails.
BOOST_AUTO_TEST_CASE(a_setup_the_driver_never_had_is_refused) {
    require_mount();
    harness::temp_dir dir("conformance-cli");
    const auto trn2_on_2_15 = write(dir, "a.yaml",
                                    "name: a\nsetup: {instance: trn2.3xlarge, driver_version: \"2.15\", "
                                    "refused: true}\nsteps: []\n");
    const auto trn2_on_2_16 = write(dir, "b.yaml",
                                    "name: b\nsetup: {instance: trn2.3xlarge, driver_version: \"2.16\", "
                                    "refused: true}\nsteps: []\n");
    const auto r = run_runner(dir, {"--keep-going", trn2_on_2_15, trn2_on_2_16});
    BOOST_TEST(r.status == 1);
    const auto v = read_verdicts(r.out);
    BOOST_TEST(v.of.at("a") == "PASS");
    BOOST_TEST(v.of.at("b") == "FAIL");
    BOOST_TEST(r.out.find("the emulator served trn2.3xlarge on driver 2.16.7.0, which the driver refuses") !=
                   std::string::npos,
               r.out);
}
