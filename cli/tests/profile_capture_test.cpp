#define BOOST_TEST_MODULE profile_command
// `neuron-emu profile capture` end to end: the session files it writes, what
// it prints, and how it refuses bad input. Views and diff:
// profile_view_test.cpp.

#include "support/command_run.h"

#include "neuron/profile/session_file.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

using namespace neuron::cli::testing;

// The instruction count `check-model` reports for the model on the instance.
std::size_t checked_instructions(const scratch_dir& dir, const std::string& file, const std::string& instance) {
    const auto r = dir.run({"check-model", "--instance", instance, file});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_search(r.out, m, std::regex("a program of ([0-9]+) instructions")), r.out);
    return std::stoul(m[1]);
}

} // namespace

BOOST_AUTO_TEST_CASE(capture_writes_one_execution_with_check_models_instruction_count) {
    const scratch_dir dir;
    for (const auto& [name, instance] :
         {std::pair<std::string, std::string>{"matmul_activation", ""}, {"every_op", "trn2.48xlarge"}}) {
        const auto path = dir / (name + ".ntff");
        std::vector<std::string> args{"profile", "capture", "-n", model(name), "-s", path};
        if (!instance.empty()) args.insert(args.end(), {"--instance", instance});
        const auto r = dir.run(args);
        BOOST_TEST_REQUIRE(r.status == 0, r.err);
        BOOST_TEST(contains(r.out, path + ":"), r.out);
        const auto shown_instance = instance.empty() ? std::string("trn1.2xlarge") : instance;
        const auto timelines = decoded(path);
        BOOST_TEST_REQUIRE(timelines.size() == 1u);
        const auto& t = timelines.front();
        BOOST_TEST(t.model_name == name);
        BOOST_TEST(t.instance_type == shown_instance);
        BOOST_TEST(t.execution == 1u);
        BOOST_TEST(t.status == 0u);
        BOOST_TEST(t.end_ps > t.start_ps);
        // Every engine of the instance runs 64 preamble instructions before the program's (K1).
        const auto preambles = std::count_if(t.instructions.begin(), t.instructions.end(),
                                             [&](const auto& i) { return t.opcodes[i.opcode] == "preamble"; });
        BOOST_TEST(preambles == 5 * 64);
        BOOST_TEST(t.instructions.size() - preambles == checked_instructions(dir, model(name), shown_instance));
    }
}

BOOST_AUTO_TEST_CASE(the_same_inputs_give_the_same_bytes_in_every_format) {
    const scratch_dir dir;
    for (const char* name : {"a", "b"}) {
        const auto r = dir.run(
            {"profile", "capture", "-n", model("matmul_activation"), "-s", dir / (name + std::string(".ntff"))});
        BOOST_TEST_REQUIRE(r.status == 0, r.err);
    }
    const auto a = slurp(dir / "a.ntff");
    BOOST_TEST_REQUIRE(!a.empty());
    BOOST_TEST((a == slurp(dir / "b.ntff")));
    for (const std::string format : {"perfetto", "json", "summary-text", "summary-json"}) {
        std::string views[2];
        for (int i = 0; i < 2; ++i) {
            const auto session = dir / (i == 0 ? "a.ntff" : "b.ntff");
            const auto out = dir / (format + std::to_string(i));
            const auto r = dir.run({"profile", "view", "-s", session, "--output-format", format, "--output-file", out});
            BOOST_TEST_REQUIRE(r.status == 0, r.err);
            views[i] = slurp(out);
        }
        BOOST_TEST(!views[0].empty(), format);
        BOOST_TEST((views[0] == views[1]), format << " differs");
    }
}

BOOST_AUTO_TEST_CASE(profile_nth_exec_records_that_execution_and_a_failure_stops_it) {
    const scratch_dir dir;
    const auto add =
        dir.run({"profile", "capture", "-n", model("add"), "--profile-nth-exec", "3", "-s", dir / "add.ntff"});
    BOOST_TEST_REQUIRE(add.status == 0, add.err);
    BOOST_TEST(decoded(dir / "add.ntff").at(0).execution == 3u);

    const auto failed =
        dir.run({"profile", "capture", "-n", model("flaky"), "--profile-nth-exec", "3", "-s", dir / "flaky.ntff"});
    BOOST_TEST(failed.status == 1, failed.err);
    BOOST_TEST(contains(failed.err, "NRT_EXEC_OOB"), failed.err);
    BOOST_TEST(contains(failed.err, "--ignore-exec-errors"), failed.err);
    BOOST_TEST(!fs::exists(dir / "flaky.ntff"));

    const auto kept = dir.run({"profile", "capture", "-n", model("flaky"), "--profile-nth-exec", "3",
                               "--ignore-exec-errors", "-s", dir / "flaky.ntff"});
    BOOST_TEST_REQUIRE(kept.status == 0, kept.err);
    const auto t = decoded(dir / "flaky.ntff");
    BOOST_TEST_REQUIRE(t.size() == 1u);
    BOOST_TEST(t[0].execution == 3u);
    BOOST_TEST(t[0].status == 1006u);
}

BOOST_AUTO_TEST_CASE(workers_write_one_file_per_profiled_rank_on_its_own_core) {
    const scratch_dir dir;
    const auto ranks = [&](const std::vector<std::string>& extra) {
        fs::remove_all(dir.path / "out");
        fs::create_directory(dir.path / "out");
        std::vector<std::string> args{"profile", "capture", "-n", model("add"), "-s", dir / "out/profile.ntff"};
        args.insert(args.end(), extra.begin(), extra.end());
        const auto r = dir.run(args);
        BOOST_TEST(r.status == 0, r.err);
        std::map<std::string, std::uint32_t> cores; // file name -> nc_idx
        for (const auto& e : fs::directory_iterator(dir.path / "out")) {
            const auto t = decoded(e.path().string());
            BOOST_TEST_REQUIRE(t.size() == 1u);
            cores[e.path().filename().string()] = t[0].core;
        }
        return cores;
    };
    using cores = std::map<std::string, std::uint32_t>;
    BOOST_TEST((ranks({"-r", "2"}) == cores{{"profile_rank_0.ntff", 0}, {"profile_rank_1.ntff", 1}}));
    BOOST_TEST((ranks({"-r", "2", "--collectives-profile-id", "1"}) == cores{{"profile_rank_1.ntff", 1}}));
    BOOST_TEST((ranks({"-r", "2", "--collectives-worker-start-id", "4"}) ==
                cores{{"profile_rank_4.ntff", 0}, {"profile_rank_5.ntff", 1}}));

    fs::remove_all(dir.path / "out");
    refused(
        dir,
        {"profile", "capture", "-n", model("add"), "-r", "2", "--collectives-profile-id", "2", "-s", dir / "p.ntff"},
        {"rank 2"});
    const auto before = dir.files();
    const auto many = dir.run({"profile", "capture", "-n", model("add"), "-r", "3", "-s", dir / "p.ntff"});
    BOOST_TEST(many.status == 1, many.err);
    BOOST_TEST(contains(many.err, "2 logical NeuronCores"), many.err);
    BOOST_TEST((dir.files() == before));
}

// With workers, --session-file names "their directory" (its help): a
// directory given there is where the rank files go, not its parent.
BOOST_AUTO_TEST_CASE(workers_write_into_a_directory_given_as_session_file) {
    const scratch_dir dir;
    fs::create_directory(dir.path / "out");
    const auto r = dir.run({"profile", "capture", "-n", model("add"), "-r", "2", "-s", dir / "out"});
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST((dir.files() == std::set<std::string>{"out", "out/profile_rank_0.ntff", "out/profile_rank_1.ntff"}),
               "wrote: " << dir.listing());
}

// Ranks are 32-bit: a start id whose workers run past 2^32 - 1 must not wrap
// round to rank 0 (which would collide with another node's rank 0).
BOOST_AUTO_TEST_CASE(worker_ranks_past_32_bits_do_not_wrap_to_0) {
    const scratch_dir dir;
    const auto r = dir.run({"profile", "capture", "-n", model("add"), "-r", "2", "--collectives-worker-start-id",
                            "4294967295", "-s", dir / "profile.ntff"});
    BOOST_TEST(!dir.files().contains("profile_rank_0.ntff"), r.out);
    if (r.status == 0) {
        BOOST_TEST(
            (dir.files() == std::set<std::string>{"profile_rank_4294967295.ntff", "profile_rank_4294967296.ntff"}),
            "wrote: " << dir.listing());
    } else {
        BOOST_TEST(r.status == 2, r.err);
        BOOST_TEST(dir.files().empty());
    }
}

// `-s -` writes the session to stdout (as view's '-' does); then stdout must
// be the session alone, or the option refused.
BOOST_AUTO_TEST_CASE(session_file_dash_gives_stdout_a_session_that_decodes) {
    const scratch_dir dir;
    const auto r = dir.run({"profile", "capture", "-n", model("add"), "-s", "-"});
    if (r.status == 0) {
        try {
            neuron::profile::decode_session(r.out);
        } catch (const std::exception& e) {
            BOOST_ERROR("stdout is no session: " << e.what());
        }
    } else {
        BOOST_TEST(r.status == 2, r.err);
    }
    BOOST_TEST(dir.files().empty());
}

BOOST_AUTO_TEST_CASE(capture_refuses_bad_input_with_exit_2_and_one_line) {
    const scratch_dir dir;
    const auto out = dir / "out.ntff";
    std::mt19937 bits(7);
    std::string noise(4096, '\0');
    for (auto& c : noise) c = static_cast<char>(bits());
    const auto random = dir.write("random.bin", noise);
    const auto yaml = dir.write("bad.yaml", "neuron_emu_model: 1\nname: m\ninputs: [a, b]]\n");
    const auto tensor = dir.write("a.bin", std::string(24, '\0'));
    const auto missing = dir / "none.yaml";

    refused(dir, {"profile", "capture", "-s", out}, {"--neff"});
    refused(dir, {"profile", "capture", "-n", missing, "-s", out}, {missing});
    refused(dir, {"profile", "capture", "-n", random, "-s", out},
            {random, "neither a NEFF nor an emulated model file"});
    refused(dir, {"profile", "capture", "-n", yaml, "-s", out}, {yaml + ":3:15: "});
    refused(dir, {"profile", "capture", "-n", model("add"), "-s", out, "a", tensor, "b"}, {"'b' has no file"});
    refused(dir, {"profile", "capture", "-n", model("add"), "-s", out, "zz", tensor}, {"no input named 'zz'"});
    refused(dir, {"profile", "capture", "-n", model("add"), "-s", out, "--profile-nth-exec", "0"},
            {"--profile-nth-exec"});
    refused(dir, {"profile", "capture", "-n", model("add"), "-s", out, "--instance", "trn3.huge"}, {"trn3.huge"});
    refused(dir, {"profile", "frobnicate"}, {"unknown command 'frobnicate'"});

    const auto usage = dir.run({"profile"});
    BOOST_TEST(usage.status == 2);
    BOOST_TEST(contains(usage.err, "usage: neuron-emu profile capture"), usage.err);
    BOOST_TEST((dir.files() == std::set<std::string>{"random.bin", "bad.yaml", "a.bin"}));
}

BOOST_AUTO_TEST_CASE(help_prints_usage_and_exits_0) {
    const scratch_dir dir;
    for (const std::string verb : {"capture", "view", "diff"}) {
        const auto r = dir.run({"profile", verb, "--help"});
        BOOST_TEST(r.status == 0, verb << ": " << r.err);
        BOOST_TEST(r.out.starts_with("usage: neuron-emu profile " + verb), verb << ": " << r.out);
        BOOST_TEST(r.err.empty(), verb << ": " << r.err);
    }
    const auto r = dir.run({"profile", "--help"});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(contains(r.out, "neuron-emu profile view (-s FILE | -d DIR)"), r.out);
    BOOST_TEST(dir.files().empty());
}

// In an output directory every user may write, another user's links stand
// where the session files go (the file -s names, a worker's rank file):
// capture refuses (exit 1, the path named) and what they point to (a file
// only root may write, say) stays as it was.
BOOST_AUTO_TEST_CASE(capture_writes_no_file_through_a_planted_link) {
    const scratch_dir dir;
    const auto victim = dir.write("victim", "precious\n");
    const auto shared = dir / "shared";
    fs::create_directory(shared);
    fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
    fs::create_symlink(victim, shared + "/p.ntff");
    fs::create_symlink(victim, shared + "/profile_rank_1.ntff");
    const auto one = dir.run({"profile", "capture", "-n", model("add"), "-s", shared + "/p.ntff"});
    BOOST_TEST(one.status == 1, one.err);
    BOOST_TEST(one.err ==
               "neuron-emu: profile capture: " + shared + "/p.ntff: a symbolic link: refusing to write through it\n");
    const auto ranks = dir.run({"profile", "capture", "-n", model("add"), "-r", "2", "-s", shared});
    BOOST_TEST(ranks.status == 1, ranks.err);
    BOOST_TEST(contains(ranks.err, shared + "/profile_rank_1.ntff: a symbolic link: refusing to write through it"),
               ranks.err);
    BOOST_TEST(slurp(victim) == "precious\n");
    BOOST_TEST(fs::is_symlink(shared + "/p.ntff"));
}
