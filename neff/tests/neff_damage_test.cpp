#define BOOST_TEST_MODULE neff_damage
// Damaged NEFFs: cut at every member boundary and offset, bits flipped, and
// the findings of fuzzing; each refused with a neff_error or read, never
// anything else.
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
        if (reads_or_refuses(t::wrap(t::gzip(flipped, 1)),
                             "bit " + std::to_string(bit) + " of tar byte " + std::to_string(at)))
            ++read;
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

// kelf-0.json {"graphs": ["sg00"]}: a graph that is not an object (once
// yaml-cpp's BadSubscript, which left read_neff).
BOOST_AUTO_TEST_CASE(graph_entry_not_an_object) {
    const auto got = outcome(matmul_with("kelf-0.json", R"({"graphs": ["sg00"]})"));
    BOOST_TEST(got.starts_with("neff_error: kelf-0.json"), got);
}

// A tensor_map.json key that is not a string (`{[1]: ...}`, which YAML
// read, and whose as<std::string>() once threw out of read_neff).
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
    const std::string off =
        R"({"var": {"a": {"type": "virtual", "size": 2, "backing_variable_off": 18446744073709551615}}})";
    const std::string sum =
        R"({"var": {"a": {"type": "file", "size": 18446744073709551615}, "b": {"type": "file", "size": 2}}})";
    BOOST_TEST(outcome(matmul_with("sg00/def.json", off)).starts_with("neff_error: sg00/def.json"),
               "a scratchpad past 2^64 is refused");
    BOOST_TEST(outcome(matmul_with("sg00/def.json", sum)).starts_with("neff_error: sg00/def.json"),
               "constants past 2^64 are refused");
}

BOOST_AUTO_TEST_SUITE_END()
