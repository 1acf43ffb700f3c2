#define BOOST_TEST_MODULE neff_refusal
#include "neuron/neff/neff_file.h"

#include "../src/archive_reader.h"
#include "neff_builder.h"

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

namespace {

// The message read_neff refuses `bytes` with; a test error when it reads
// them, or throws anything but a neff_error.
std::string refusal(const std::string& bytes) {
    try {
        (void)read_neff(bytes);
        BOOST_ERROR("read_neff accepted the file");
    } catch (const neff_error& e) {
        return e.what();
    } catch (const std::exception& e) {
        BOOST_ERROR("read_neff threw something else than a neff_error: " << e.what());
    } catch (...) {
        BOOST_ERROR("read_neff threw something else than a std::exception");
    }
    return {};
}

// Refused, with a message holding each of `parts`.
void check_refused(const std::string& bytes, const std::vector<std::string>& parts) {
    const auto message = refusal(bytes);
    for (const auto& part : parts) {
        BOOST_TEST(message.find(part) != std::string::npos, "'" << message << "' names '" << part << "'");
    }
}

// The matmul NEFF with one member replaced (or, with no contents, removed).
std::string matmul_with(const std::string& name, const std::string* contents) {
    auto b = neff_builder::two_core_matmul();
    if (contents == nullptr) {
        b.members.erase(name);
    } else {
        b.members[name] = *contents;
    }
    return b.bytes();
}
std::string matmul_with(const std::string& name, const std::string& contents) { return matmul_with(name, &contents); }
std::string matmul_without(const std::string& name) { return matmul_with(name, nullptr); }

// The matmul tar with `extra` added before its end blocks, gzipped and wrapped.
std::string matmul_plus(const std::string& extra) {
    auto tar = neff_builder::two_core_matmul().tar();
    tar.resize(tar.size() - 2 * t::tar_block);
    return t::wrap(t::gzip(tar + extra + t::tar_end()));
}

// Reads or refuses with neff_error; anything else is a test error.
// Returns whether it read.
bool reads_or_refuses(const std::string& bytes, const std::string& what) {
    try {
        (void)read_neff(bytes);
        return true;
    } catch (const neff_error&) {
        return false;
    } catch (const std::exception& e) {
        BOOST_ERROR(what << ": read_neff threw something else than a neff_error: " << e.what());
    } catch (...) {
        BOOST_ERROR(what << ": read_neff threw something else than a std::exception");
    }
    return false;
}

} // namespace

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
    check_refused(t::neff_header(n + 1) + payload, {std::to_string(n + 1) + " bytes of payload", "the file has " + std::to_string(n)});
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
    check_refused(matmul_plus(t::tar_header("sg00/evil.json", 0, '2', "/etc/passwd")), {"sg00/evil.json", "not a regular file", "'2'"});
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
    for (const std::string member : {"info.json", "kelf-0.json", "sg00/def.json", "sg01/def.json", "sg00/tensor_map.json",
                                     "sg00/SP.json", "sg01/PE.json", "hlo_stats.json"}) {
        BOOST_TEST_CONTEXT(member) {
            check_refused(matmul_with(member, R"({"graphs": [{"name": "sg00"}, )"), {member + ": malformed JSON", member + ":1:"});
            check_refused(matmul_with(member, "{\n  \"a\": 1,\n  \"b\": [1, 2}\n}"), {member + ": malformed JSON", member + ":3:"});
            check_refused(matmul_with(member, "[1, 2, 3]"), {member + ": not a JSON object"});
        }
    }
}

BOOST_AUTO_TEST_CASE(kelf_graphs) {
    check_refused(matmul_with("kelf-0.json", R"({"graphs": {"name": "sg00"}})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": "sg00"})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": []})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"version": "0.5"})"), {"kelf-0.json", "\"graphs\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": "../x"}]})"), {"kelf-0.json", "a graph named \"../x\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": ".."}]})"), {"a graph named \"..\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"name": ""}]})"), {"a graph named \"\""});
    check_refused(matmul_with("kelf-0.json", R"({"graphs": [{"definition": "sg00/def.json"}]})"), {"kelf-0.json", "\"name\""});
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
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input", "tf_shape": [1,2,3,4,5,6,7,8,9]})")),
                  {"sg00/tensor_map.json", "tensor \"x\"", "more than 8 dimensions"});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input", "tf_shape": [2, 4294967296]})")),
                  {"tensor \"x\"", "a dimension of 4294967296, past 2^32 - 1"});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input", "tf_shape": [2, -1]})")),
                  {"tensor \"x\"", "\"tf_shape\""});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input", "tf_shape": "128x256"})")),
                  {"tensor \"x\"", "\"tf_shape\""});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"kind": "input", "tf_shape": [4]})")),
                  {"tensor \"x\"", "no \"dtype\""});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float16", "kind": "input"})")),
                  {"tensor \"x\"", "no \"tf_shape\""});
    check_refused(matmul_with("sg00/tensor_map.json", map(R"({"dtype": "float64", "kind": "input", "tf_shape": [4294967295, 4294967295, 4294967295]})")),
                  {"tensor \"x\"", "2^64"});
    check_refused(matmul_with("sg00/tensor_map.json", map("[1]")), {"sg00/tensor_map.json", "\"x\" is not an object"});
    std::string many = "{";
    for (int i = 0; i < 4097; ++i) many += (i ? ", \"t" : "\"t") + std::to_string(i) + "\": {}";
    check_refused(matmul_with("sg00/tensor_map.json", many + "}"), {"sg00/tensor_map.json", "more than 4096 keys"});
}

BOOST_AUTO_TEST_CASE(variables) {
    const auto def = [](const std::string& var) { return R"({"var": {"SB": {"type": "state-buffer"}, "v": )" + var + "}}"; };
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
        return std::string(e.what()).find("inflates to more than " + std::to_string(limits.max_inflated_bytes)) != std::string::npos;
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

BOOST_AUTO_TEST_SUITE(robustness)

// Cut at the start and the end of every member (and inside its header):
// the gzip stream is whole, the tar is not. Every cut is refused.
BOOST_AUTO_TEST_CASE(tar_cut_at_every_member_boundary) {
    auto b = neff_builder::two_core_matmul();
    // With pax paths a member's span starts at its pax header.
    for (const bool pax : {false, true}) {
        b.style.pax_paths = pax;
        std::vector<neff_builder::span> spans;
        const auto tar = b.tar(&spans);
        BOOST_TEST_REQUIRE(spans.size() == b.members.size());
        for (const auto& s : spans) {
            for (const auto cut : {s.begin, s.begin + 300, s.end, s.end - 1}) {
                BOOST_TEST_CONTEXT((pax ? "pax: " : "") << s.name << " cut at " << cut) {
                    const auto message = refusal(t::wrap(t::gzip(tar.substr(0, cut), 1)));
                    BOOST_TEST((message.find("truncated") != std::string::npos ||
                                message.find("end-of-archive") != std::string::npos),
                               message);
                }
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(whole_file_cut_at_200_offsets) {
    const auto bytes = neff_builder::two_core_matmul().bytes();
    for (std::size_t i = 0; i < 200; ++i) {
        const auto cut = bytes.size() * i / 200;
        BOOST_TEST_CONTEXT("cut at " << cut) { BOOST_TEST(!refusal(bytes.substr(0, cut)).empty()); }
        // The same cut with the header's payload length made to agree.
        if (cut > 1024) {
            auto fixed = bytes.substr(0, cut);
            t::put_u64_le(fixed, 16, cut - 1024);
            BOOST_TEST_CONTEXT("cut at " << cut << ", payload length fixed") { (void)reads_or_refuses(fixed, "cut"); }
        }
    }
}

BOOST_AUTO_TEST_CASE(two_thousand_single_bit_flips) {
    const auto bytes = neff_builder::two_core_matmul().bytes();
    std::mt19937_64 random(20240517);
    std::uniform_int_distribution<std::size_t> offset(0, bytes.size() - 1);
    int read = 0;
    for (int i = 0; i < 2000; ++i) {
        auto flipped = bytes;
        const auto at = offset(random);
        const auto bit = static_cast<int>(random() % 8);
        flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
        if (reads_or_refuses(flipped, "bit " + std::to_string(bit) + " of byte " + std::to_string(at))) ++read;
    }
    BOOST_TEST_MESSAGE(read << " of 2000 flipped files read");
    BOOST_TEST(read < 2000); // the flips that matter are refused (gzip_checksum_and_trailer_not_checked for the rest)
}

// The same inside the gzip stream: flips of the tar itself (headers,
// names, sizes, JSON text), gzipped again, reach the tar and JSON readers.
BOOST_AUTO_TEST_CASE(two_thousand_single_bit_flips_of_the_tar) {
    const auto tar = neff_builder::two_core_matmul().tar();
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::size_t> offset(0, tar.size() - 1);
    int read = 0;
    for (int i = 0; i < 2000; ++i) {
        auto flipped = tar;
        const auto at = offset(random);
        const auto bit = static_cast<int>(random() % 8);
        flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
        if (reads_or_refuses(t::wrap(t::gzip(flipped, 1)), "bit " + std::to_string(bit) + " of tar byte " + std::to_string(at))) ++read;
    }
    BOOST_TEST_MESSAGE(read << " of 2000 flipped tars read");
    BOOST_TEST(read < 2000);
}

BOOST_AUTO_TEST_SUITE_END()

// What the fuzzer and the first tests found, now refused or read as they
// should be: each case pins the fix.
BOOST_AUTO_TEST_SUITE(findings)

// What read_neff does with `bytes`: "read", "neff_error: <message>" or
// "other: <message>".
std::string outcome(const std::string& bytes) {
    try {
        (void)read_neff(bytes);
        return "read";
    } catch (const neff_error& e) {
        return std::string("neff_error: ") + e.what();
    } catch (const std::exception& e) {
        return std::string("other: ") + e.what();
    }
}

// Whether zlib inflates the whole gzip stream, its CRC-32 and length included.
bool gunzips(const std::string& payload) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return false;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(payload.data()));
    z.avail_in = static_cast<uInt>(payload.size());
    std::string out(1 << 16, '\0');
    int r = Z_OK;
    while (r == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(out.data());
        z.avail_out = static_cast<uInt>(out.size());
        r = inflate(&z, Z_NO_FLUSH);
    }
    const bool whole = r == Z_STREAM_END && z.avail_in == 0;
    inflateEnd(&z);
    return whole;
}

// The reader inflates the gzip stream to its end after the tar's: damage to
// the CRC-32, the length or a member it only measures is refused.
BOOST_AUTO_TEST_CASE(gzip_checksum_and_trailer_are_checked) {
    const auto payload = neff_builder::two_core_matmul().payload();
    auto crc = payload;
    crc[crc.size() - 6] = static_cast<char>(crc[crc.size() - 6] ^ 0x01);
    BOOST_TEST(!gunzips(crc));
    BOOST_TEST(outcome(t::wrap(crc)).starts_with("neff_error"), "a flipped CRC-32 is refused");
    BOOST_TEST(outcome(t::wrap(payload.substr(0, payload.size() - 8))).starts_with("neff_error"),
               "a gzip stream without its 8-byte trailer is refused");
    // Every flip of the deflate data that zlib's own check catches is refused.
    int accepted = 0;
    int corrupt = 0;
    for (std::size_t at = 10; at + 8 < payload.size(); ++at) {
        auto flipped = payload;
        flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
        if (gunzips(flipped)) continue;
        ++corrupt;
        if (reads_or_refuses(t::wrap(flipped), "flip at " + std::to_string(at))) ++accepted;
    }
    BOOST_TEST_MESSAGE(accepted << " of " << corrupt << " corrupt gzip streams read");
    BOOST_TEST(accepted == 0);
}

// kelf-0.json {"graphs": ["sg00"]}: yaml-cpp's operator[] on a scalar throws
// YAML::BadSubscript, which leaves read_neff.
BOOST_AUTO_TEST_CASE(graph_entry_not_an_object) {
    const auto got = outcome(matmul_with("kelf-0.json", R"({"graphs": ["sg00"]})"));
    BOOST_TEST(got.starts_with("neff_error: kelf-0.json"), got);
}

// A tensor_map.json key that is not a scalar (YAML reads `{[1]: ...}`):
// as<std::string>() throws YAML::TypedBadConversion, which leaves read_neff.
BOOST_AUTO_TEST_CASE(tensor_name_not_a_string) {
    for (const std::string map : {R"({[1]: {"kind": "input"}})", R"({{"a": 1}: {"kind": "input"}})"}) {
        const auto got = outcome(matmul_with("sg00/tensor_map.json", map));
        BOOST_TEST(got.starts_with("neff_error: sg00/tensor_map.json"), map << ": " << got);
    }
}

// `tar -czf payload -C dir .` starts with a "./" directory entry; its name
// normalises to "" and is refused ("a member without a name").
BOOST_AUTO_TEST_CASE(a_root_directory_entry_is_read) {
    auto b = neff_builder::two_core_matmul();
    b.style = {.dot_slash = true, .directories = true};
    const auto got = outcome(t::wrap(t::gzip(t::tar_header("./", 0, '5') + b.tar())));
    BOOST_TEST(got == "read", "a tar with a ./ directory entry: " << got);
}

// def.json sizes and offsets are added without an overflow check: the
// scratchpad and constant figures wrap to small numbers.
BOOST_AUTO_TEST_CASE(variable_sums_past_2_64_are_refused) {
    const std::string off = R"({"var": {"a": {"type": "virtual", "size": 2, "backing_variable_off": 18446744073709551615}}})";
    const std::string sum = R"({"var": {"a": {"type": "file", "size": 18446744073709551615}, "b": {"type": "file", "size": 2}}})";
    BOOST_TEST(outcome(matmul_with("sg00/def.json", off)).starts_with("neff_error: sg00/def.json"), "a scratchpad past 2^64 is refused");
    BOOST_TEST(outcome(matmul_with("sg00/def.json", sum)).starts_with("neff_error: sg00/def.json"), "constants past 2^64 are refused");
}

BOOST_AUTO_TEST_SUITE_END()
