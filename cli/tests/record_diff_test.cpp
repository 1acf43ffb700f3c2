#define BOOST_TEST_MODULE record_diff
// `neuron-emu record` and `neuron-conformance diff` on served trees: two
// releases differ where their layouts do; a root that is not a Neuron tree
// and a damaged recording are refused. (replay_matrix_test replays every
// catalogued instance and release.)

#include "support/process_harness.h"
#include "support/served_tree.h"

#include "neuron/recording/recording_file.h"
#include "neuron/recording/tree_diff.h"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

using namespace neuron::cli::testing;
namespace rec = neuron::recording;

namespace {

outcome conformance(const temp_dir& dir, const std::vector<std::string>& args) {
    std::vector<std::string> argv{NEURON_CONFORMANCE_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return neuron::test_support::run_to_end({.argv = std::move(argv)}, dir.path(), run_timeout);
}

} // namespace

// What the CLI writes is what a walk of the tree finds, on one instance of
// each generation at the first and the default release (replay_matrix_test
// walks every instance and release).
BOOST_AUTO_TEST_CASE(recordings_of_served_trees_are_those_trees) {
    require_mount();
    temp_dir tmp("record");
    for (const auto* name : {"inf1.xlarge", "inf2.xlarge", "trn1.2xlarge", "trn2.3xlarge"}) {
        for (const auto* tag : {"2.7.15.0", "2.24.7.0"}) {
            if (std::string_view(name) == "trn2.3xlarge" && std::string_view(tag) == "2.7.15.0")
                continue; // Trn2 came in 2.16
            BOOST_TEST_CONTEXT(name << " " << tag) {
                const served tree(tmp, name, tag);
                const auto file = tmp / "tree.yaml";
                const auto r =
                    run_to_end(tmp, {"record", "--sysfs-root", tree.mount, "--driver-version", tag, "-o", file});
                BOOST_TEST_REQUIRE(r.status == 0, r.err);
                const auto recorded = rec::read_recording(slurp(file), file);
                BOOST_TEST(recorded.driver_release == tag);
                BOOST_TEST(recorded.device_count == 1u);
                const auto d = rec::diff_recordings(recorded, live(tree.mount, tag), {.values = true});
                BOOST_TEST(d.empty(), rec::format_differences(d));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(diff_says_what_two_releases_change_and_exits_1) {
    require_mount();
    temp_dir tmp("record");
    const served old_tree(tmp, "trn1.2xlarge", "2.7", "old");
    const served new_tree(tmp, "trn1.2xlarge", "2.24", "new");
    const auto r = conformance(tmp, {"diff", old_tree.mount, new_tree.mount});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(contains(r.out, "structure: "), r.out);
    const auto same = conformance(tmp, {"diff", new_tree.mount, new_tree.mount});
    BOOST_TEST(same.status == 0, same.err);
    BOOST_TEST(same.out == "no differences\n");
    // A recording against the tree it came from, counters moving or not.
    BOOST_TEST_REQUIRE(run_to_end(tmp, {"record", "--sysfs-root", new_tree.mount, "-o", tmp / "new.yaml"}).status == 0);
    BOOST_TEST(conformance(tmp, {"diff", tmp / "new.yaml", new_tree.mount}).status == 0);
    BOOST_TEST(conformance(tmp, {"diff", tmp / "new.yaml", new_tree.mount, "--values"}).status == 0);
}

// In an output directory every user may write, another user's links stand
// at the recording's name and at the name record once wrote it to first:
// record refuses (exit 1, the path named) and what they point to (a file
// only root may write, say) stays as it was. Beside a link it cannot
// follow, an honest file is still replaced whole.
BOOST_AUTO_TEST_CASE(record_writes_no_file_through_a_planted_link) {
    temp_dir tmp("record");
    std::filesystem::create_directories(tmp / "tree/neuron0");
    std::ofstream(tmp / "tree/neuron0/core_count") << "2\n";
    const auto shared = tmp / "shared";
    std::filesystem::create_directories(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    const auto victim = tmp / "victim";
    std::ofstream(victim) << "precious\n";
    std::filesystem::create_symlink(victim, shared + "/host.yaml");
    std::filesystem::create_symlink(victim, shared + "/host.yaml.partial");
    const auto r = run_to_end(tmp, {"record", "--sysfs-root", tmp / "tree", "-o", shared + "/host.yaml"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(r.err ==
               "neuron-emu: record: " + shared + "/host.yaml: a symbolic link: refusing to write through it\n");
    BOOST_TEST(slurp(victim) == "precious\n");
    BOOST_TEST(std::filesystem::is_symlink(shared + "/host.yaml"));

    std::ofstream(shared + "/honest.yaml") << "an older recording\n";
    BOOST_TEST_REQUIRE(
        run_to_end(tmp, {"record", "--sysfs-root", tmp / "tree", "-o", shared + "/honest.yaml"}).status == 0);
    BOOST_TEST(rec::read_recording(slurp(shared + "/honest.yaml"), "honest.yaml").entries.size() == 2u);
    BOOST_TEST(slurp(victim) == "precious\n");
}

BOOST_AUTO_TEST_CASE(bad_roots_recordings_and_arguments_are_refused) {
    temp_dir tmp("record");
    auto r = run_to_end(tmp, {"record", "--sysfs-root", tmp.path(), "-o", tmp / "x.yaml"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "is not a Neuron driver's tree"), r.err);
    BOOST_TEST(!std::filesystem::exists(tmp / "x.yaml"), "nothing written");
    r = run_to_end(tmp, {"record", "--sysfs-root", tmp.path()});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "-o FILE"), r.err);
    r = run_to_end(tmp, {"record", "--samples", "2", "--interval", "soon", "-o", "-"});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.err, "--interval takes a duration"), r.err);

    std::ofstream(tmp / "bad.yaml") << "neuron_tree_recording: 1\nroot: /r\ndevice_count: 1\nentries:\n  - {path: a, "
                                       "type: file, mode: \"0444\", value: 1, value_hex: \"01\"}\n";
    auto d = conformance(tmp, {"diff", tmp / "bad.yaml", tmp / "bad.yaml"});
    BOOST_TEST(d.status == 2);
    const auto expected = tmp / "bad.yaml" + ":5:5: an entry has value or value_hex, not both";
    BOOST_TEST(contains(d.err, expected), d.err << " lacks " << expected);
    d = conformance(tmp, {"diff", tmp / "bad.yaml"});
    BOOST_TEST(d.status == 2);
    BOOST_TEST(contains(d.err, "diff A B"), d.err);
    d = conformance(tmp, {"diff", tmp / "absent.yaml", tmp / "bad.yaml"});
    BOOST_TEST(d.status == 2);
    BOOST_TEST(contains(d.err, "absent.yaml"), d.err);
}
