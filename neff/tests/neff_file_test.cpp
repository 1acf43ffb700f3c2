#define BOOST_TEST_MODULE neff_file
#include "neuron/neff/neff_file.h"

#include "neff_builder.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace neuron::neff;
using neuron::neff::testing::neff_builder;

namespace {

void check_tensor(const tensor& t, const std::string& name, const std::vector<std::uint64_t>& shape,
                  std::uint64_t bytes) {
    BOOST_TEST_CONTEXT("tensor " << name) {
        BOOST_TEST(t.name == name);
        BOOST_TEST(t.dtype == "float16");
        BOOST_TEST(t.shape == shape, boost::test_tools::per_element());
        BOOST_TEST(t.bytes == bytes);
    }
}

// Everything two_core_matmul() says, read back.
void check_matmul(const neff_info& info) {
    BOOST_TEST(info.format_version == 2u);
    BOOST_TEST(info.name == "matmul.neff");
    BOOST_TEST(info.tool_version == "2.99.0.0+synthetic");

    // The signature: inputs x, y and output0; the constant w_const is not one.
    BOOST_TEST_REQUIRE(info.inputs.size() == 2u);
    check_tensor(info.inputs[0], "x", {128, 256}, 128 * 256 * 2);
    check_tensor(info.inputs[1], "y", {256, 128}, 256 * 128 * 2);
    BOOST_TEST_REQUIRE(info.outputs.size() == 1u);
    check_tensor(info.outputs[0], "output0", {128, 128}, 128 * 128 * 2);

    BOOST_TEST_REQUIRE(info.cores.size() == 2u);
    for (std::size_t c = 0; c < 2; ++c) {
        const auto& want = neff_builder::matmul_cores[c];
        const auto& got = info.cores[c];
        BOOST_TEST_CONTEXT("core " << want.name) {
            BOOST_TEST(got.name == want.name);
            BOOST_TEST(got.code_bytes == want.code_bytes);
            BOOST_TEST(got.constant_bytes == want.constant_bytes);
            BOOST_TEST(got.scratchpad_bytes == want.scratchpad_bytes);
            BOOST_TEST(got.dma_transfers == want.dma_transfers);
            for (std::size_t e = 0; e < engine_count; ++e) {
                BOOST_TEST(got.instructions[e] == want.instructions[e], engine_files[e]);
            }
        }
    }
    BOOST_TEST(info.macs == 4194304u);
    BOOST_TEST(info.traffic_bytes == 262144u);
}

// code_bytes is every .bin of the folder: the builder's own sum agrees with
// the numbers written down in matmul_cores.
std::uint64_t bin_bytes(const neff_builder& b, const std::string& folder) {
    std::uint64_t n = 0;
    for (const auto& [name, data] : b.members) {
        if (name.starts_with(folder + "/") && name.ends_with(".bin")) n += data.size();
    }
    return n;
}

} // namespace

BOOST_AUTO_TEST_CASE(builder_expectations_match_its_members) {
    const auto b = neff_builder::two_core_matmul();
    BOOST_TEST(bin_bytes(b, "sg00") == neff_builder::matmul_cores[0].code_bytes);
    BOOST_TEST(bin_bytes(b, "sg01") == neff_builder::matmul_cores[1].code_bytes);
    for (const auto& [name, data] : b.members) {
        if (name.ends_with(".bin") && (name.find("table") == std::string::npos) &&
            (name.find("exp_and") == std::string::npos)) {
            BOOST_TEST(data.size() % 64 == 0u, name);
        }
    }
    // The header says what the file is.
    const auto bytes = b.bytes();
    BOOST_TEST(bytes.size() == 1024 + b.payload().size());
    BOOST_TEST(bytes.substr(0, 3) == std::string("\x02\0\0", 3));
}

BOOST_AUTO_TEST_CASE(synthetic_neff_reads_back) { check_matmul(read_neff(neff_builder::two_core_matmul().bytes())); }

BOOST_AUTO_TEST_CASE(reads_back_with_every_tar_naming_style) {
    struct variant {
        const char* what;
        neff_builder::tar_style style;
    };
    const variant variants[] = {
        {"pax path headers", {.pax_paths = true}},
        {"GNU long names", {.gnu_long_names = true}},
        {"./ prefixed names", {.dot_slash = true}},
        {"directory entries", {.directories = true}},
        {"all of them", {.pax_paths = true, .dot_slash = true, .directories = true}},
        {"GNU long names, ./ and directories", {.gnu_long_names = true, .dot_slash = true, .directories = true}},
    };
    for (const auto& v : variants) {
        BOOST_TEST_CONTEXT(v.what) {
            auto b = neff_builder::two_core_matmul();
            b.style = v.style;
            // The stand-in names in the ustar headers must not be what is read.
            if (v.style.pax_paths || v.style.gnu_long_names) BOOST_TEST(b.tar().find("stand-in-") != std::string::npos);
            if (v.style.directories) BOOST_TEST(b.tar().find("sg00/") != std::string::npos);
            check_matmul(read_neff(b.bytes()));
        }
    }
}

BOOST_AUTO_TEST_CASE(names_past_100_bytes_and_the_ustar_prefix) {
    auto b = neff_builder::two_core_matmul();
    // A member the reader measures under a name longer than a ustar name
    // field: the builder writes it with a pax path.
    const std::string deep = "sg00/" + std::string(150, 'd') + ".bin";
    b.members[deep] = std::string(640, '\x01');
    auto info = read_neff(b.bytes());
    BOOST_TEST(info.cores[0].code_bytes == neff_builder::matmul_cores[0].code_bytes + 640);

    // The same member named through the ustar prefix field instead.
    b.members.erase(deep);
    auto tar = b.tar();
    tar.resize(tar.size() - 1024); // drop the end blocks
    tar += testing::tar_header("extra_table.bin", 128, '0', {}, "sg01") + testing::tar_padded(std::string(128, '\x02'));
    tar += testing::tar_end();
    info = read_neff(testing::wrap(testing::gzip(tar)));
    BOOST_TEST(info.cores[1].code_bytes == neff_builder::matmul_cores[1].code_bytes + 128);
}

BOOST_AUTO_TEST_CASE(minimal_neff_reads_back) {
    const auto info = read_neff(neff_builder::one_core_minimal().bytes());
    BOOST_TEST(info.name == "tiny.neff");
    BOOST_TEST_REQUIRE(info.cores.size() == 1u);
    BOOST_TEST(info.cores[0].code_bytes == 64u);
    BOOST_TEST(info.cores[0].scratchpad_bytes == 128u);
    BOOST_TEST(info.cores[0].constant_bytes == 0u);
    BOOST_TEST(info.cores[0].dma_transfers == 1u);
    BOOST_TEST(info.cores[0].instructions[0] == 1u);
    for (std::size_t e = 1; e < engine_count; ++e) BOOST_TEST(info.cores[0].instructions[e] == 0u);
    BOOST_TEST_REQUIRE(info.inputs.size() == 1u);
    BOOST_TEST(info.inputs[0].bytes == 8u);
    BOOST_TEST(info.inputs[0].dtype == "float32");
    BOOST_TEST_REQUIRE(info.outputs.size() == 1u);
    BOOST_TEST(info.macs == 0u); // no hlo_stats.json
    BOOST_TEST(info.traffic_bytes == 0u);
}

BOOST_AUTO_TEST_CASE(other_dtypes_and_shapes) {
    auto b = neff_builder::one_core_minimal();
    b.members["sg00/tensor_map.json"] = R"({
        "i": {"dtype": "bfloat16", "kind": "input", "tf_shape": [3, 5]},
        "j": {"dtype": "int8", "kind": "input", "tf_shape": [7]},
        "k": {"dtype": "float8_e4m3", "kind": "input", "tf_shape": [1, 1, 1, 1, 1, 1, 1, 9]},
        "c": {"dtype": "no-such-type", "is_const": true, "tf_shape": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]},
        "o": {"dtype": "float64", "kind": "output", "tf_shape": [0, 4]},
        "s": {"dtype": "float32", "kind": "input", "tf_shape": []}})";
    const auto info = read_neff(b.bytes());
    BOOST_TEST_REQUIRE(info.inputs.size() == 4u);
    BOOST_TEST(info.inputs[3].bytes == 4u, "a scalar");
    BOOST_TEST(info.inputs[3].shape.empty());
    BOOST_TEST(info.inputs[0].bytes == 30u);
    BOOST_TEST(info.inputs[1].bytes == 7u);
    BOOST_TEST(info.inputs[2].bytes == 9u);
    BOOST_TEST(info.inputs[2].shape.size() == 8u);
    BOOST_TEST_REQUIRE(info.outputs.size() == 1u);
    BOOST_TEST(info.outputs[0].bytes == 0u);
    BOOST_TEST(dtype_bytes("float16") == 2u);
    BOOST_TEST(dtype_bytes("float32") == 4u);
    BOOST_TEST(dtype_bytes("float") == 0u);
}

BOOST_AUTO_TEST_CASE(looks_like_neff_says_what_the_header_says) {
    BOOST_TEST(looks_like_neff(neff_builder::two_core_matmul().bytes()));
    BOOST_TEST(looks_like_neff(neff_builder::one_core_minimal().bytes()));
    // A model file of the emulator's own YAML format.
    const std::string yaml = "name: matmul\nversion: 1\ninputs:\n  - name: x\n    bytes: 65536\noutputs:\n  - name: y\n"
                             "    bytes: 32768\nduration_us: 120\n";
    BOOST_TEST(!looks_like_neff(yaml));
    BOOST_TEST(!looks_like_neff(""));
    BOOST_TEST(!looks_like_neff(std::string(23, '\0')));
    std::mt19937_64 random(42);
    for (int i = 0; i < 100; ++i) {
        std::string noise(2048, '\0');
        for (auto& c : noise) c = static_cast<char>(random());
        BOOST_TEST(!looks_like_neff(noise));
    }
    // The payload alone (a gzip) is not a NEFF.
    BOOST_TEST(!looks_like_neff(neff_builder::two_core_matmul().payload()));
}

BOOST_AUTO_TEST_CASE(the_header_names_the_file) {
    BOOST_TEST(header_name(neff_builder::two_core_matmul().bytes()) == "file.neff");
    BOOST_TEST(header_name("short").empty());
    auto bytes = neff_builder::two_core_matmul().bytes();
    bytes.replace(0xdc, 5,
                  "a\nb\x01"
                  "c");
    BOOST_TEST(header_name(bytes) == "a\\nb\\x01cneff", "printable");
}

// The runtime's scratchpad (reference/neff.md): contiguous, the high-water
// mark in 64 MiB pages, every variable shared; paged, the high-water mark in
// the page size, and each variable no page holds also gets an allocation of
// its own.
BOOST_AUTO_TEST_CASE(scratchpad_charges_in_both_layouts) {
    constexpr std::uint64_t mib = 1 << 20;
    core_graph g;
    g.scratch_variables = {{0, 100 * mib}, {100 * mib, 1024 * mib}, {1200 * mib, 1600 * mib}};
    g.scratchpad_bytes = 2800 * mib;
    auto c = charge(g);
    BOOST_TEST(c.scratchpad == 2816 * mib, "44 pages of 64 MiB");
    BOOST_TEST(c.nonshared_scratchpad == 0u);
    c = charge(g, {false, 512 * mib});
    BOOST_TEST(c.scratchpad == 3072 * mib, "6 pages of 512 MiB");
    BOOST_TEST(c.nonshared_scratchpad == 2624 * mib, "the 1 GiB and the 1.6 GiB variable");
    c = charge(g, {false, 2048 * mib});
    BOOST_TEST(c.scratchpad == 4096 * mib);
    BOOST_TEST(c.nonshared_scratchpad == 1600 * mib, "1200 MiB + 1600 MiB crosses the 2 GiB page");
    // Sizes no device has saturate rather than wrap.
    g.scratch_variables = {{0, UINT64_MAX}};
    g.scratchpad_bytes = UINT64_MAX;
    c = charge(g, {false, 512 * mib});
    BOOST_TEST(c.scratchpad == UINT64_MAX);
    BOOST_TEST(c.nonshared_scratchpad == UINT64_MAX);
    BOOST_TEST(charge(core_graph{}).scratchpad == 0u);
}

BOOST_AUTO_TEST_CASE(reading_is_deterministic_and_ignores_unread_members) {
    auto b = neff_builder::two_core_matmul();
    const auto first = read_neff(b.bytes());
    // neff.json, .npy, .dbg and unknown members are not read: garbage there is fine.
    b.members["neff.json"] = "{{{ not json";
    b.members["sg00/debug_info_asm_PE.dbg"] = std::string(5000, '\xff');
    b.members["sg00/value_w_const.npy"] = "?";
    b.members["README"] = "hello";
    const auto second = read_neff(b.bytes());
    BOOST_TEST(second.cores[0].code_bytes == first.cores[0].code_bytes);
    BOOST_TEST(second.inputs.size() == first.inputs.size());
}

// Writes the fuzzer's seeds (fuzz/corpus/neff/) when NEURON_NEFF_CORPUS_DIR
// names a folder; otherwise does nothing.
BOOST_AUTO_TEST_CASE(write_fuzz_corpus) {
    auto styled = neff_builder::one_core_minimal();
    styled.style = {.pax_paths = true, .dot_slash = true, .directories = true};
    const auto long_name = testing::gnu_long_name("sg00/" + std::string(150, 'n') + ".json") +
                           testing::tar_member("stand-in", "{}") + testing::tar_end();
    auto shared_names = neff_builder::one_core_minimal();
    shared_names.members["kelf-0.json"] = R"({"graphs": [{"name": "sg00"}, {"name": "sg00"}]})";
    const std::pair<std::string, std::string> seeds[] = {
        {"two_core_matmul.neff", neff_builder::two_core_matmul().bytes()},
        {"one_core_pax_dirs.neff", styled.bytes()},
        {"shared_graph_names.neff", shared_names.bytes()},
        // Not NEFFs: bare tars, which the harness gzips and wraps itself so
        // that mutations reach the tar and JSON readers directly, and a JSON
        // member, which it also reads on its own.
        {"one_core_minimal.tar", neff_builder::one_core_minimal().tar()},
        {"gnu_long_name.tar", long_name},
        {"def.json", neff_builder::two_core_matmul().members.at("sg00/def.json")},
    };
    for (const auto& [name, data] : seeds) {
        // scripts/test's bounded fuzz run reads at most 8 KiB of an input.
        BOOST_TEST(data.size() <= 8192u, name);
    }
    const char* dir = std::getenv("NEURON_NEFF_CORPUS_DIR");
    if (dir == nullptr) return;
    for (const auto& [name, data] : seeds) {
        std::ofstream out(std::string(dir) + "/" + name, std::ios::binary);
        out << data;
        BOOST_TEST(out.good(), name);
    }
}
