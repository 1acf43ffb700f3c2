#define BOOST_TEST_MODULE neff_refusal
#include "neuron/neff/neff_file.h"

#include "../src/archive_reader.h"
#include "neff_builder.h"
#include "refusal_checks.h"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace neuron::neff;
namespace t = neuron::neff::testing;
using t::neff_builder;
using namespace neuron::neff::testing;

BOOST_AUTO_TEST_SUITE(header)

BOOST_AUTO_TEST_CASE(shorter_than_the_header) {
    check_refused("", {"0 bytes", "1024-byte header"});
    check_refused(std::string(1023, '\0'), {"1023 bytes", "1024-byte header"});
    check_refused(t::neff_header(0).substr(0, 600), {"600 bytes"});
}

BOOST_AUTO_TEST_CASE(another_version) {
    const auto payload = neff_builder::two_core_matmul().payload();
    check_refused(t::neff_header(payload.size(), 3) + payload, {"version 3", "version 2"});
    check_refused(t::neff_header(payload.size(), 1) + payload, {"version 1"});
}

BOOST_AUTO_TEST_CASE(header_length_not_1024) {
    const auto payload = neff_builder::two_core_matmul().payload();
    check_refused(t::neff_header(payload.size(), 2, 512) + payload, {"header says it is 512 bytes", "1024"});
    check_refused(t::neff_header(payload.size(), 2, 2048) + payload, {"2048"});
}

BOOST_AUTO_TEST_CASE(payload_length_disagrees_with_the_file) {
    const auto payload = neff_builder::two_core_matmul().payload();
    const auto n = payload.size();
    check_refused(t::neff_header(n + 1) + payload,
                  {std::to_string(n + 1) + " bytes of payload", "the file has " + std::to_string(n)});
    check_refused(t::neff_header(n - 1) + payload, {std::to_string(n - 1) + " bytes of payload"});
    check_refused(t::neff_header(n) + payload + "x", {"the file has " + std::to_string(n + 1)});
    check_refused(t::neff_header(UINT64_MAX) + payload, {"18446744073709551615"});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(gzip)

BOOST_AUTO_TEST_CASE(corrupt_deflate_data) {
    auto payload = neff_builder::two_core_matmul().payload();
    // The first deflate block's type bits (after the 10-byte gzip header) set to 3, a reserved type.
    payload[10] = static_cast<char>(payload[10] | 0x06);
    check_refused(t::wrap(payload), {"gzip stream is corrupt"});
    // Not gzip at all.
    check_refused(t::wrap(std::string(4000, 'A')), {"gzip stream is corrupt"});
    // A stored-looking block whose length and its complement disagree.
    payload = neff_builder::two_core_matmul().payload();
    payload[10] = 0x00; // not final, stored
    payload[11] = 0x10;
    payload[12] = 0x00;
    payload[13] = 0x10;
    payload[14] = 0x00;
    check_refused(t::wrap(payload), {"gzip stream is corrupt"});
}

BOOST_AUTO_TEST_CASE(gzip_truncated) {
    const auto payload = neff_builder::two_core_matmul().payload();
    for (const auto keep : {payload.size() / 2, std::size_t{20}, std::size_t{11}}) {
        BOOST_TEST_CONTEXT("the first " << keep << " bytes of the gzip stream") {
            check_refused(t::wrap(payload.substr(0, keep)), {"gzip stream is truncated"});
        }
    }
    check_refused(t::wrap(payload.substr(0, 5)), {"gzip"});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tar)

BOOST_AUTO_TEST_CASE(tar_truncated_inside_a_member) {
    const auto b = neff_builder::two_core_matmul();
    std::vector<neff_builder::span> spans;
    const auto tar = b.tar(&spans);
    for (const auto& s : spans) {
        if (s.name != "sg00/PE.bin" && s.name != "info.json" && s.name != "sg01/tensor_map.json") continue;
        BOOST_TEST_CONTEXT(s.name) {
            // Inside the data (kept and skipped members), and inside the header.
            check_refused(t::wrap(t::gzip(tar.substr(0, s.begin + 512 + 10))), {"tar is truncated"});
            check_refused(t::wrap(t::gzip(tar.substr(0, s.begin + 100))), {"tar is truncated"});
        }
    }
}

BOOST_AUTO_TEST_CASE(bad_checksum) {
    auto tar = neff_builder::two_core_matmul().tar();
    tar[0] = static_cast<char>(tar[0] ^ 0x20); // the first member's name, its checksum left as it was
    check_refused(t::wrap(t::gzip(tar)), {"checksum"});
    check_refused(matmul_plus(t::tar_header("extra.json", 0, '0', {}, {}, 1)), {"checksum"});
    check_refused(matmul_plus(t::tar_header("extra.json", 0, '0', {}, {}, -1)), {"checksum"});
}

BOOST_AUTO_TEST_CASE(links_and_devices) {
    check_refused(matmul_plus(t::tar_header("sg00/evil.json", 0, '2', "/etc/passwd")),
                  {"sg00/evil.json", "not a regular file", "'2'"});
    check_refused(matmul_plus(t::tar_header("sg00/hard.json", 0, '1', "info.json")), {"sg00/hard.json", "'1'"});
    check_refused(matmul_plus(t::tar_header("dev", 0, '3')), {"'dev'", "'3'"});
    check_refused(matmul_plus(t::tar_header("fifo", 0, '6')), {"'fifo'", "'6'"});
}

BOOST_AUTO_TEST_CASE(names_that_leave_the_archive) {
    check_refused(matmul_plus(t::tar_member("../escape.json", "{}")), {"'../escape.json'", "leaves the archive"});
    check_refused(matmul_plus(t::tar_member("sg00/../../x.bin", "1")), {"'sg00/../../x.bin'", "leaves the archive"});
    check_refused(matmul_plus(t::tar_member("sg00/..", "1")), {"leaves the archive"});
    check_refused(matmul_plus(t::tar_member("/etc/passwd", "root")), {"'/etc/passwd'", "absolute path"});
    check_refused(matmul_plus(t::tar_member(".//abs", "root")), {"absolute path"});
    // The same through a pax path and a GNU long name.
    check_refused(matmul_plus(t::pax_header(t::pax_record("path", "../pax.json")) + t::tar_member("harmless", "")),
                  {"'../pax.json'", "leaves the archive"});
    check_refused(matmul_plus(t::gnu_long_name("/long/" + std::string(120, 'l')) + t::tar_member("harmless", "")),
                  {"absolute path"});
}

BOOST_AUTO_TEST_CASE(a_member_twice) {
    check_refused(matmul_plus(t::tar_member("sg00/def.json", "{}")), {"'sg00/def.json' twice"});
    check_refused(matmul_plus(t::tar_member("./info.json", "{}")), {"'info.json' twice"});
    check_refused(matmul_plus(t::tar_member("sg01/PE.bin", "")), {"'sg01/PE.bin' twice"});
}

BOOST_AUTO_TEST_CASE(bad_pax_records) {
    const auto member = t::tar_member("harmless", "");
    check_refused(matmul_plus(t::pax_header("99 path=x\n") + member), {"pax record"});
    check_refused(matmul_plus(t::pax_header("nonsense") + member), {"pax record"});
    check_refused(matmul_plus(t::pax_header(t::pax_record("size", "12x")) + member), {"pax size"});
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(members)

BOOST_AUTO_TEST_CASE(missing_members) {
    check_refused(matmul_without("info.json"), {"info.json: missing"});
    check_refused(matmul_without("kelf-0.json"), {"kelf-0.json: missing"});
    check_refused(matmul_without("sg00/def.json"), {"sg00/def.json: missing"});
    check_refused(matmul_without("sg01/def.json"), {"sg01/def.json: missing"});
    check_refused(matmul_without("sg00/tensor_map.json"), {"sg00/tensor_map.json: missing"});
}

BOOST_AUTO_TEST_CASE(malformed_json_names_the_member) {
    for (const std::string member : {"info.json", "kelf-0.json", "sg00/def.json", "sg01/def.json",
                                     "sg00/tensor_map.json", "sg00/SP.json", "sg01/PE.json", "hlo_stats.json"}) {
        BOOST_TEST_CONTEXT(member) {
            check_refused(matmul_with(member, R"({"graphs": [{"name": "sg00"}, )"),
                          {member + ":1:", ": malformed JSON: "});
            check_refused(matmul_with(member, "{\n  \"a\": 1,\n  \"b\": [1, 2}\n}"),
                          {member + ":3:", ": malformed JSON: "});
            check_refused(matmul_with(member, "[1, 2, 3]"), {member + ": not a JSON object"});
        }
    }
}

BOOST_AUTO_TEST_CASE(kelf_graphs) {
    check_refused(matmul_with("kelf-0.json", R"({"graphs": {"name": "sg00"}})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": "sg00"})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": []})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"version": "0.5"})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": "../x"}]})"),
                  {"kelf-0.json", "a graph named \"../x\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": ".."}]})"), {"a graph named \"..\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": ""}]})"), {"a graph named \"\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"definition": "sg00/def.json"}]})"),
                  {"kelf-0.json", "\"name\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": ["sg00"]}]})"), {"kelf-0.json", "\"name\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": "sg02"}]})"), {"sg02/def.json: missing"});
    std::string many = R"({"graphs": [)";
    for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + R"({"name": "sg00"})";
    check_refused(matmul_with("kelf-0.json", many + "]}"), {"kelf-0.json", "more than 64 graphs"});
}

BOOST_AUTO_TEST_CASE(tensors) {
    const auto map = [](const std::string& x) {
        return R"({"output0": {"dtype": "float16", "kind": "output", "tf_shape": [128, 128]}, "x": )" + x + "}";
    };
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float17", "kind": "input", "tf_shape": [4]})")),
                  {"sg00/tensor_map.json", "tensor \"x\"", "unknown dtype \"float17\""});
    check_refused(matmul_with("sg00/tensor_map.json",
                              map(R"({"dtype": "float16", "kind": "input", "tf_shape": [1,2,3,4,5,6,7,8,9]})")),
                  {"sg00/tensor_map.json", "tensor \"x\"", "more than 8 dimensions"});
    check_refused(matmul_with("sg00/tensor_map.json",
                              map(R"({"dtype": "float16", "kind": "input", "tf_shape": [2, 4294967296]})")),
                  {"tensor \"x\"", "a dimension of 4294967296, past 2^32 - 1"});
    check_refused(
        matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input", "tf_shape": [2, -1]})")),
        {"tensor \"x\"", "\"tf_shape\""});
    check_refused(
        matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input", "tf_shape": "128x256"})")),
        {"tensor \"x\"", "\"tf_shape\""});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"kind": "input", "tf_shape": [4]})")),
                  {"tensor \"x\"", "no \"dtype\""});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input"})")),
                  {"tensor \"x\"", "no \"tf_shape\""});
    check_refused(
        matmul_with("sg00/tensor_map.json",
                    map(R"({"dtype": "float64", "kind": "input", "tf_shape": [4294967295, 4294967295, 4294967295]})")),
        {"tensor \"x\"", "2^64"});
    check_refused(matmul_with("sg00/tensor_map.json", map("[1]")), {"sg00/tensor_map.json", "\"x\" is not an object"});
    std::string many = "{";
    for (int i = 0; i < 4097; ++i) many += (i ? ", \"t" : "\"t") + std::to_string(i) + "\": {}";
    check_refused(matmul_with("sg00/tensor_map.json", many + "}"), {"sg00/tensor_map.json", "more than 4096 tensors"});
}

BOOST_AUTO_TEST_CASE(variables) {
    const auto def = [](const std::string& var) {
        return R"({"var": {"SB": {"type": "state-buffer"}, "v": )" + var + "}}";
    };
    check_refused(matmul_with("sg00/def.json", def(R"({"type": "file", "size": "lots", "file_name": "v.npy"})")),
                  {"sg00/def.json", "variable \"v\"", "\"size\""});
    check_refused(matmul_with("sg01/def.json", def(R"({"type": "virtual", "size": [1], "backing_variable_off": 0})")),
                  {"sg01/def.json", "variable \"v\"", "\"size\""});
    check_refused(matmul_with("sg00/def.json", def(R"({"type": "virtual", "size": 64, "backing_variable_off": -64})")),
                  {"sg00/def.json", "variable \"v\"", "\"backing_variable_off\""});
    check_refused(matmul_with("sg00/def.json", def(R"({"type": "virtual", "size": 64})")),
                  {"sg00/def.json", "variable \"v\"", "no \"backing_variable_off\""});
    check_refused(matmul_with("sg00/def.json", def(R"({"type": "file"})")), {"variable \"v\"", "no \"size\""});
    check_refused(matmul_with("sg00/def.json", R"({"var": [1, 2]})"), {"sg00/def.json", "\"var\" is not an object"});
    check_refused(matmul_with("sg00/SP.json", R"({"dma": {"a": 1}})"), {"sg00/SP.json", "\"dma\" is not a list"});
}

BOOST_AUTO_TEST_CASE(oversized_json_member) {
    // 64 MiB + 1 of zeros: a few tens of KiB compressed.
    const auto big = std::string((std::size_t{64} << 20) + 1, '\0');
    auto b = neff_builder::one_core_minimal();
    b.members["sg00/def.json"] = big;
    check_refused(t::wrap(t::gzip(b.tar(), 1)), {"sg00/def.json", "67108865 bytes", "67108864"});
    // A member that is not read may be that big.
    b = neff_builder::one_core_minimal();
    b.members["sg00/huge_table.bin"] = big;
    BOOST_TEST(read_neff(t::wrap(t::gzip(b.tar(), 1))).cores[0].code_bytes == 64u + big.size());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(archive_limits)

namespace d = neuron::neff::detail;
const auto keep_json = [](std::string_view name) { return name.ends_with(".json"); };

BOOST_AUTO_TEST_CASE(reads_members_it_keeps_and_measures_the_rest) {
    const auto b = neff_builder::two_core_matmul();
    const auto all = d::read_archive(b.payload(), keep_json);
    BOOST_TEST(all.size() == b.members.size());
    for (const auto& m : all) {
        BOOST_TEST_CONTEXT(m.name) {
            BOOST_TEST_REQUIRE(b.members.count(m.name) == 1u);
            BOOST_TEST(m.size == b.members.at(m.name).size());
            BOOST_TEST(m.kept == m.name.ends_with(".json"));
            if (m.kept) BOOST_TEST(m.data == b.members.at(m.name));
            if (!m.kept) BOOST_TEST(m.data.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(inflation_limit) {
    const auto b = neff_builder::two_core_matmul();
    const auto payload = b.payload();
    const auto inflated = b.tar().size();
    d::archive_limits limits;
    limits.max_inflated_bytes = inflated - 512 * 3;
    BOOST_CHECK_EXCEPTION(d::read_archive(payload, keep_json, limits), neff_error, [&](const neff_error& e) {
        return std::string(e.what()).find("inflates to more than " + std::to_string(limits.max_inflated_bytes)) !=
               std::string::npos;
    });
    limits.max_inflated_bytes = inflated;
    BOOST_TEST(d::read_archive(payload, keep_json, limits).size() == b.members.size());
}

BOOST_AUTO_TEST_CASE(member_count_and_kept_size_limits) {
    const auto b = neff_builder::two_core_matmul();
    d::archive_limits limits;
    limits.max_members = 10;
    BOOST_CHECK_EXCEPTION(d::read_archive(b.payload(), keep_json, limits), neff_error, [](const neff_error& e) {
        return std::string(e.what()).find("more than 10 members") != std::string::npos;
    });
    limits = {};
    limits.max_kept_bytes = 200;
    BOOST_CHECK_EXCEPTION(d::read_archive(b.payload(), keep_json, limits), neff_error, [](const neff_error& e) {
        return std::string(e.what()).find("more than the 200 this loader reads") != std::string::npos;
    });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(member_names)

namespace d = neuron::neff::detail;
const auto keep_json = [](std::string_view name) { return name.ends_with(".json"); };

// The finding: names in GNU 'L' records of up to 64 MiB, kept whole for
// every member: a 4 MB NEFF held more than 3 GiB.
BOOST_AUTO_TEST_CASE(long_names_and_pax_headers_are_bounded) {
    const auto named = [](const std::string& name) {
        return matmul_plus(t::gnu_long_name(name) + t::tar_member("stand-in", "x"));
    };
    BOOST_TEST(reads_or_refuses(named("debug_info/" + std::string(4096 - 11, 'n')), "a name of 4096 bytes"));
    check_refused(named("debug_info/" + std::string(4096 - 10, 'n')),
                  {"a GNU long name of 4098 bytes; names are at most 4096"});
    check_refused(named(std::string(1 << 20, 'n')), {"a GNU long name of 1048577 bytes"});
    check_refused(matmul_plus(t::pax_header(t::pax_record("path", std::string(5000, 'p'))) + t::tar_member("s", "")),
                  {"a member name of 5000 bytes; names are at most 4096"});
    check_refused(
        matmul_plus(t::pax_header(t::pax_record("comment", std::string(65536, 'c'))) + t::tar_member("s", "")),
        {"a pax header of 65551 bytes; at most 65536"});
}

BOOST_AUTO_TEST_CASE(every_members_name_counts_against_what_the_reader_holds) {
    auto tar = neff_builder::two_core_matmul().tar();
    tar.resize(tar.size() - 2 * t::tar_block);
    for (int i = 0; i < 64; ++i) {
        tar += t::gnu_long_name("debug_info/" + std::to_string(i) + std::string(4000, 'n')) + t::tar_member("s", "");
    }
    const auto payload = t::gzip(tar + t::tar_end());
    d::archive_limits limits;
    BOOST_TEST(d::read_archive(payload, keep_json, limits).size() ==
               neff_builder::two_core_matmul().members.size() + 64);
    limits.max_held_bytes = 64 * 4000;
    BOOST_CHECK_EXCEPTION(d::read_archive(payload, keep_json, limits), neff_error, [](const neff_error& e) {
        return std::string(e.what()) ==
               "what this loader keeps of the payload's tar (the JSON it reads, every member's "
               "name) passes 256000 bytes";
    });
    // Names and kept JSON together: the JSON alone fits, not with the names.
    std::uint64_t json = 0;
    std::uint64_t names = 0;
    for (const auto& [name, data] : neff_builder::two_core_matmul().members) {
        if (keep_json(name)) json += data.size();
        names += name.size() + d::member_record_bytes;
    }
    const auto matmul = neff_builder::two_core_matmul().payload();
    limits.max_held_bytes = json + names;
    BOOST_CHECK_NO_THROW(d::read_archive(matmul, keep_json, limits));
    limits.max_held_bytes = json + names - 1;
    BOOST_CHECK_THROW(d::read_archive(matmul, keep_json, limits), neff_error);
}

BOOST_AUTO_TEST_SUITE_END()
