#define BOOST_TEST_MODULE inspect_neff
// `neuron-emu inspect-neff` end to end on NEFFs the test builds
// (neff/tests/neff_builder.h): text, JSON, and refusals with exit 2.

#include "support/command_run.h"

#include "../../neff/tests/neff_builder.h"

#include "neuron/neff/neff_file.h"

#include <yaml-cpp/yaml.h>

using namespace neuron::cli::testing;

namespace {

const auto matmul = neuron::neff::testing::neff_builder::two_core_matmul();

} // namespace

BOOST_AUTO_TEST_CASE(text_shows_signature_memory_and_instructions) {
    scratch_dir dir;
    const auto file = dir.write("matmul.neff", matmul.bytes());
    const auto r = dir.run({"inspect-neff", file});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    BOOST_TEST(contains(r.out, "NEFF version 2"), r.out);
    BOOST_TEST(contains(r.out, "2 NeuronCores, 4194304 MACs (8388608 FLOPs)"), r.out);
    BOOST_TEST(contains(r.out, "input  x"), r.out);
    BOOST_TEST(contains(r.out, "sg00: model_code"), r.out);
    BOOST_TEST(contains(r.out, "sg01: instructions: tensor"), r.out);
    BOOST_TEST(r.err.empty(), r.err);
}

BOOST_AUTO_TEST_CASE(json_agrees_with_the_reader) {
    scratch_dir dir;
    const auto file = dir.write("matmul.neff", matmul.bytes());
    const auto r = dir.run({"inspect-neff", "--json", file});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    const auto json = YAML::Load(r.out);
    const auto read = neuron::neff::read_neff(matmul.bytes());
    BOOST_TEST_REQUIRE(json.size() == 1u);
    BOOST_TEST(json[0]["macs"].as<std::uint64_t>() == read.macs);
    BOOST_TEST(json[0]["cores"].size() == read.cores.size());
    for (std::size_t c = 0; c < read.cores.size(); ++c) {
        const auto charged = neuron::neff::charge(read.cores[c]);
        const auto memory = json[0]["cores"][c]["memory"];
        BOOST_TEST(memory["model_code"].as<std::uint64_t>() == charged.model_code);
        BOOST_TEST(memory["constants"].as<std::uint64_t>() == charged.constants);
        BOOST_TEST(memory["model_shared_scratchpad"].as<std::uint64_t>() == charged.scratchpad);
        BOOST_TEST(memory["dma_rings"].as<std::uint64_t>() == charged.dma_rings);
        BOOST_TEST(json[0]["cores"][c]["instructions"]["tensor"].as<std::uint64_t>() == read.cores[c].instructions[0]);
    }
    BOOST_TEST(json[0]["inputs"][0]["name"].as<std::string>() == read.inputs.front().name);
}

BOOST_AUTO_TEST_CASE(a_broken_file_is_refused_with_what_is_wrong) {
    scratch_dir dir;
    auto cut = matmul.bytes();
    cut.resize(cut.size() / 2);
    const auto good = dir.write("good.neff", matmul.bytes());
    const auto broken = dir.write("cut.neff", cut);
    const auto r = dir.run({"inspect-neff", good, broken});
    BOOST_TEST(r.status == 2);
    BOOST_TEST(contains(r.out, "good.neff: NEFF version 2"), r.out); // the good one is still shown
    BOOST_TEST(contains(r.err, "cut.neff: the header says"), r.err);
    refused(dir, {"inspect-neff"}, {"give one or more NEFF files"});
    refused(dir, {"inspect-neff", dir / "missing.neff"}, {"missing.neff", "cannot open it"});
}

// `profile capture` takes a NEFF too: the execution runs its stream work, one
// instruction per instruction of each engine's longest stream, with its MACs.
BOOST_AUTO_TEST_CASE(profile_capture_runs_a_neff) {
    scratch_dir dir;
    const auto file = dir.write("matmul.neff", matmul.bytes());
    const auto session = dir / "matmul.ntff";
    const auto r = dir.run({"profile", "capture", "-n", file, "-s", session, "--instance", "trn2.48xlarge"});
    BOOST_TEST_REQUIRE(r.status == 0, r.err);
    const auto timelines = decoded(session);
    BOOST_TEST_REQUIRE(timelines.size() == 1u);
    const auto& t = timelines.front();
    BOOST_TEST(t.model_name == "matmul.neff");
    BOOST_TEST(t.lnc == 2u);
    BOOST_TEST(t.instructions.size() == 16u + 3 + 5 + 8 + 4, "the longer of the two graphs' streams, per engine");
    std::uint64_t macs = 0;
    for (const auto& i : t.instructions) macs += i.macs;
    BOOST_TEST(macs == 4194304u);

    // On trn1 a logical core is one physical core: the two-core NEFF does not load.
    const auto refused = dir.run({"profile", "capture", "-n", file, "-s", session, "--instance", "trn1.2xlarge"});
    BOOST_TEST(refused.status != 0);
    BOOST_TEST(contains(refused.err, "'matmul.neff' was compiled for 2 NeuronCores"), refused.err);
}
