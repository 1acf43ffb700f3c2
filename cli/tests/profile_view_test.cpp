#define BOOST_TEST_MODULE profile_command
// `neuron-emu profile view` and `profile diff` end to end: summary-text,
// summary-json, json, perfetto and the diff, checked against the session
// file they show, and how they refuse bad input.

#include "support/command_run.h"

#include "neuron/profile/perfetto_lint.h"
#include "neuron/profile/session_file.h"

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
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

// neuron-emu profile capture -n MODEL -s DIR/FILE [EXTRA...]; the file's path.
std::string captured(const scratch_dir& dir, const std::string& name, const std::string& file,
                     const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"profile", "capture", "-n", model(name), "-s", dir / file};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = dir.run(args);
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    return dir / file;
}

// stdout of neuron-emu ARGS, which must succeed.
std::string shown(const scratch_dir& dir, const std::vector<std::string>& args) {
    const auto r = dir.run(args);
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(r.err.empty(), r.err);
    return r.out;
}

} // namespace

namespace {

using fields = std::vector<std::pair<std::string, std::string>>;

// summary-text: blocks of "key  value" lines, a blank line between blocks.
std::vector<fields> text_blocks(const std::string& text) {
    std::vector<fields> blocks(1);
    std::istringstream lines(text);
    const std::regex field("([a-z_]+)  +([^ ]+)");
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (line.empty()) {
            blocks.emplace_back();
        } else if (std::regex_match(line, m, field)) {
            blocks.back().push_back({m[1], m[2]});
        } else {
            BOOST_ERROR("not 'key  value': " << line);
        }
    }
    return blocks;
}

fields json_fields(const YAML::Node& object) {
    fields out;
    for (const auto& kv : object) out.push_back({kv.first.as<std::string>(), kv.second.as<std::string>()});
    return out;
}

std::string value_of(const fields& f, const std::string& key) {
    const auto it = std::find_if(f.begin(), f.end(), [&](const auto& kv) { return kv.first == key; });
    BOOST_TEST_REQUIRE((it != f.end()), "no " << key);
    return it->second;
}

// Seconds as the views print them, in whole nanoseconds.
long long ns_of(const std::string& seconds) { return std::llround(std::stod(seconds) * 1e9); }

} // namespace

BOOST_AUTO_TEST_CASE(summary_views_show_the_same_fields_per_core) {
    const scratch_dir dir;
    fs::create_directory(dir.path / "out");
    captured(dir, "layers_with_prints", "out/profile.ntff", {"-r", "2"});
    const auto rank0 = dir / "out/profile_rank_0.ntff";
    const auto t = decoded(rank0).at(0);

    const auto text = text_blocks(shown(dir, {"profile", "view", "-s", rank0}));
    BOOST_TEST_REQUIRE(text.size() == 1u);
    const auto& f = text[0];
    BOOST_TEST_REQUIRE(f.size() >= 3u);
    BOOST_TEST(f[0].first == "nc_idx");
    BOOST_TEST(f[0].second == "0");
    BOOST_TEST(f[1].first == "nd_idx");
    BOOST_TEST(f[2].first == "total_time");
    const auto total_ns = static_cast<long long>((t.end_ps - t.start_ps) / 1000);
    BOOST_TEST(std::llabs(ns_of(f[2].second) - total_ns) <= 1, f[2].second << " s, timeline " << total_ns << " ns");

    const auto json = YAML::Load(shown(dir, {"profile", "view", "-s", rank0, "--output-format", "summary-json"}));
    BOOST_TEST_REQUIRE(json.IsMap());
    BOOST_TEST_REQUIRE(json.size() == 1u);
    BOOST_TEST(json.begin()->first.as<std::string>() == "0");
    BOOST_TEST((json_fields(json["0"]) == f)); // same keys, same order, same values

    const auto both = YAML::Load(shown(dir, {"profile", "view", "-d", dir / "out", "--output-format", "summary-json"}));
    std::vector<std::string> keys;
    for (const auto& kv : both) keys.push_back(kv.first.as<std::string>());
    BOOST_TEST((keys == std::vector<std::string>{"0", "1"}));
    const auto blocks = text_blocks(shown(dir, {"profile", "view", "-d", dir / "out"}));
    BOOST_TEST_REQUIRE(blocks.size() == 2u);
    BOOST_TEST(value_of(blocks[0], "nc_idx") == "0");
    BOOST_TEST(value_of(blocks[1], "nc_idx") == "1");
    BOOST_TEST((blocks[1] == json_fields(both["1"])));
}

BOOST_AUTO_TEST_CASE(json_rows_are_the_instructions_in_time_order_and_add_up_to_the_summary) {
    const scratch_dir dir;
    for (const std::string name : {"matmul_activation", "every_op", "layers_with_prints"}) {
        const auto session = captured(dir, name, name + ".ntff");
        const auto t = decoded(session).at(0);
        const auto out = dir / (name + ".json");
        shown(dir, {"profile", "view", "-s", session, "--output-format", "json", "--output-file", out});
        const auto doc = YAML::Load(slurp(out));
        const auto summary = json_fields(doc["summary"][0]);
        const auto rows = doc["instruction"];
        BOOST_TEST_REQUIRE(rows.size() == t.instructions.size(), name);
        std::uint64_t last = 0, tensor_ns = 0, tensor_rows = 0, matmuls = 0;
        std::set<std::string> locations;
        for (const auto& row : rows) {
            const auto ts = row["timestamp"].as<std::uint64_t>();
            BOOST_TEST(ts >= last, name << ": " << ts << " after " << last);
            last = ts;
            const auto label = row["label"].as<std::string>();
            if (label == "TensorMatrix") {
                ++matmuls;
                BOOST_TEST(row["engine"].as<std::string>() == "tensor");
            }
            if (row["engine"].as<std::string>() == "tensor") {
                ++tensor_rows;
                tensor_ns += row["duration"].as<std::uint64_t>();
                BOOST_TEST((label == "TensorMatrix" || label == "Tensor"), label);
            }
            if (row["nki_source_location"]) locations.insert(row["nki_source_location"].as<std::string>());
        }
        BOOST_TEST(std::to_string(tensor_rows) == value_of(summary, "tensor_engine_instruction_count"), name);
        BOOST_TEST(static_cast<long long>(tensor_ns) == ns_of(value_of(summary, "tensor_engine_instruction_time")),
                   name);
        BOOST_TEST(std::to_string(matmuls) == value_of(summary, "matmul_instruction_count"), name);
        if (name == "matmul_activation") BOOST_TEST(matmuls == 1024u);
        // Every `source:` of the model file, and only those, label some row.
        std::set<std::string> sources;
        const auto text = slurp(model(name));
        const std::regex source("source: \"([^\"]+)\"");
        for (std::sregex_iterator m(text.begin(), text.end(), source), end; m != end; ++m) sources.insert((*m)[1]);
        BOOST_TEST((locations == sources), name);
        if (name != "matmul_activation") BOOST_TEST(!sources.empty(), name);
    }
}

BOOST_AUTO_TEST_CASE(perfetto_trace_lints_clean_with_and_without_flows) {
    const scratch_dir dir;
    const auto session = captured(dir, "matmul_activation", "mm.ntff");
    for (const bool flows : {false, true}) {
        const auto out = dir / (flows ? "flows.pftrace" : "plain.pftrace");
        std::vector<std::string> args{"profile",  "view",          "-s", session, "--output-format",
                                      "perfetto", "--output-file", out};
        if (flows) args.push_back("--show-perfetto-flows");
        BOOST_TEST(shown(dir, args) == "wrote " + out + "\n");
        const auto bytes = slurp(out);
        const auto problems = neuron::profile::perfetto::lint(bytes);
        BOOST_TEST(problems.empty(), flows << ": " << (problems.empty() ? "" : problems.front()));
        const auto trace = neuron::profile::perfetto::decode(bytes);
        const bool any_flow = std::any_of(trace.events.begin(), trace.events.end(), [](const auto& e) {
            return !e.flows.empty() || !e.terminating_flows.empty();
        });
        BOOST_TEST(any_flow == flows);
        std::set<std::string> names;
        for (const auto& track : trace.tracks) names.insert(track.name);
        for (const char* name :
             {"TensorMatrix Engine - Row 0", "qSyncIO0 - Row 0", "DMA Throughput", "Pending DMA Count"}) {
            BOOST_TEST(names.contains(name), name);
        }
        BOOST_TEST(std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.starts_with("S["); }));
    }
    // An execution a fault stopped: the error is an instant on "Notifications".
    const auto flaky = captured(dir, "flaky", "flaky.ntff", {"--profile-nth-exec", "3", "--ignore-exec-errors"});
    shown(dir, {"profile", "view", "-s", flaky, "--output-format", "perfetto", "--output-file", dir / "flaky.pftrace"});
    const auto faulted = slurp(dir / "flaky.pftrace");
    BOOST_TEST(neuron::profile::perfetto::lint(faulted).empty());
    const auto trace = neuron::profile::perfetto::decode(faulted);
    const auto notifications = std::find_if(trace.tracks.begin(), trace.tracks.end(),
                                            [](const auto& track) { return track.name == "Notifications"; });
    BOOST_TEST_REQUIRE((notifications != trace.tracks.end()));
    BOOST_TEST(std::any_of(trace.events.begin(), trace.events.end(),
                           [&](const auto& e) { return e.track == notifications->id; }));
    // Default output files, in the current directory.
    BOOST_TEST(shown(dir, {"profile", "view", "-s", session, "--output-format", "perfetto"}) == "wrote ntff.pftrace\n");
    BOOST_TEST((slurp(dir / "ntff.pftrace") == slurp(dir / "plain.pftrace")));
    BOOST_TEST(shown(dir, {"profile", "view", "-s", session, "--output-format", "json"}) == "wrote ntff.json\n");
    BOOST_TEST(YAML::Load(slurp(dir / "ntff.json"))["instruction"].size() > 1000u);
}

BOOST_AUTO_TEST_CASE(diff_compares_two_profiles_in_text_and_json) {
    const scratch_dir dir;
    const auto a = captured(dir, "matmul_activation", "a.ntff");
    const auto b = captured(dir, "matmul_activation", "b.ntff", {"--instance", "trn2.48xlarge"});
    const auto text = shown(dir, {"profile", "diff", a, b});
    BOOST_TEST(text.starts_with("A: matmul_activation on trn1.2xlarge"), text);
    BOOST_TEST(contains(text, "\nB: matmul_activation on trn2.48xlarge"), text);
    BOOST_TEST(std::regex_search(text, std::regex("\ntotal_time +[0-9.e-]+ +[0-9.e-]+ +[-+][0-9.e-]+\n")), text);
    BOOST_TEST(std::regex_search(text, std::regex("\nMATMUL +1024 +1024 +\\+0 ")), text);

    const auto json = YAML::Load(shown(dir, {"profile", "diff", "--json", a, b}));
    const auto total = json["summary"]["total_time"];
    const auto ta = total["a"].as<double>(), tb = total["b"].as<double>();
    const auto t = decoded(a).at(0);
    BOOST_TEST(std::llabs(std::llround(ta * 1e9) - static_cast<long long>((t.end_ps - t.start_ps) / 1000)) <= 1, ta);
    BOOST_TEST(total["delta"].as<double>() == tb - ta, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(json["opcodes"]["MATMUL"]["count_a"].as<std::uint64_t>() == 1024u);
    BOOST_TEST(json["opcodes"]["MATMUL"]["count_delta"].as<std::int64_t>() == 0);

    const auto same = YAML::Load(shown(dir, {"profile", "diff", "--json", a, a}));
    BOOST_TEST_REQUIRE(same["summary"].size() > 20u);
    for (const auto& kv : same["summary"]) {
        const auto key = kv.first.as<std::string>();
        BOOST_TEST_REQUIRE(kv.second["delta"], key << " has no delta");
        BOOST_TEST(kv.second["delta"].as<double>() == 0.0, key);
        BOOST_TEST(kv.second["a"].as<std::string>() == kv.second["b"].as<std::string>(), key);
    }
}

BOOST_AUTO_TEST_CASE(view_and_diff_refuse_bad_input_with_exit_2_and_one_line) {
    const scratch_dir dir;
    const auto good = captured(dir, "add", "good.ntff");
    const auto bytes = slurp(good);
    const auto truncated = dir.write("truncated.ntff", bytes.substr(0, bytes.size() / 2));
    std::mt19937 bits(11);
    std::string noise(4096, '\0');
    for (auto& c : noise) c = static_cast<char>(bits());
    const auto random = dir.write("random.ntff", noise);
    const auto damaged = dir.write("damaged.ntff", bytes.substr(0, 12) + noise); // magic and version, then noise
    const auto missing = dir / "none.ntff";
    fs::create_directory(dir.path / "empty");
    // Two executions in one file, as the shim's profiling calls write them.
    const auto t = decoded(good);
    const std::vector<neuron::profile::core_timeline> two{t[0], t[0]};
    const auto pair = dir.write("two.ntff", neuron::profile::encode_session(two));

    const std::vector<std::string> perfetto{"--output-format", "perfetto"};
    const auto view = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"profile", "view"});
        return args;
    };
    refused(dir, view(perfetto), {"-s FILE or -d DIR"});
    refused(dir, view({"-s", good, "-d", dir / "empty", "--output-format", "perfetto"}), {"-s FILE or -d DIR"});
    refused(dir, view({"-s", good, "--output-format", "db"}), {"InfluxDB"});
    refused(dir, view({"-s", good, "--output-format", "xml"}), {"--output-format xml"});
    refused(dir, view({"-s", missing, "--output-format", "perfetto"}), {missing});
    refused(dir, view({"-s", truncated, "--output-format", "perfetto"}), {truncated + ": byte "});
    refused(dir, view({"-s", random, "--output-format", "perfetto"}), {random + ": byte "});
    refused(dir, view({"-s", damaged, "--output-format", "perfetto"}), {damaged + ": byte "});
    refused(dir, view({"-d", dir / "empty", "--output-format", "perfetto"}), {dir / "empty", "no *.ntff"});
    refused(dir, {"profile", "diff", good}, {"two session files"});
    refused(dir, {"profile", "diff", good, truncated}, {truncated + ": byte "});
    refused(dir, {"profile", "diff", pair, good}, {pair, "2 executions"});
    // A file of two executions is a profile a view shows.
    BOOST_TEST(text_blocks(shown(dir, view({"-s", pair}))).size() == 2u);
}

// In an output directory every user may write, another user's link stands
// where the view goes (--output-file, or the default ntff.json run there):
// the view refuses (exit 1, the path named) and what the link points to (a
// file only root may write, say) stays as it was; an honest file of the
// caller's there is overwritten as before.
BOOST_AUTO_TEST_CASE(view_writes_no_file_through_a_planted_link) {
    const scratch_dir dir;
    const auto good = captured(dir, "add", "good.ntff");
    const auto victim = dir.write("victim", "precious\n");
    const auto shared = dir / "shared";
    fs::create_directory(shared);
    fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
    fs::create_symlink(victim, shared + "/trace.pftrace");
    const auto r = dir.run(
        {"profile", "view", "-s", good, "--output-format", "perfetto", "--output-file", shared + "/trace.pftrace"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(r.err == "neuron-emu: profile view: " + shared +
                            "/trace.pftrace: a symbolic link: refusing to write through it\n");
    BOOST_TEST(slurp(victim) == "precious\n");
    BOOST_TEST(fs::is_symlink(shared + "/trace.pftrace"));
    const auto honest = dir.write("shared/honest.json", "an older view, longer than the new one will be? no\n");
    BOOST_TEST_REQUIRE(
        dir.run({"profile", "view", "-s", good, "--output-format", "json", "--output-file", honest}).status == 0);
    BOOST_TEST(slurp(honest).starts_with("{"));
}

// summary-json keys each profile by its core ("0"): profiles of one core (a
// directory of several executions, as -d allows any *.ntff) must not give a
// JSON object with the same key twice, which parsers collapse into one.
BOOST_AUTO_TEST_CASE(summary_json_gives_each_profile_of_a_directory_its_own_key) {
    const scratch_dir dir;
    fs::create_directory(dir.path / "out");
    captured(dir, "add", "out/a.ntff");
    captured(dir, "every_op", "out/b.ntff");
    BOOST_TEST(text_blocks(shown(dir, {"profile", "view", "-d", dir / "out"})).size() == 2u);
    const auto json = shown(dir, {"profile", "view", "-d", dir / "out", "--output-format", "summary-json"});
    std::set<std::string> keys;
    std::size_t count = 0;
    for (const auto& kv : YAML::Load(json)) {
        keys.insert(kv.first.as<std::string>());
        ++count;
    }
    BOOST_TEST(count == 2u, json.substr(0, 200));
    BOOST_TEST(keys.size() == count, "duplicate keys: " << json.substr(0, 200));
}
