#define BOOST_TEST_MODULE neff_bounds
// What reading a NEFF costs, counted rather than timed: each JSON member is
// parsed at most once, a NEFF whose graphs share a name is refused before
// any graph is parsed, and a stop test ends the reading within 64 KiB of
// inflating or parsing.

#include "neuron/neff/neff_file.h"

#include "neff_builder.h"

#include <fmt/format.h>

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace neuron::neff;
namespace t = neuron::neff::testing;
using t::neff_builder;

namespace {

constexpr std::uint64_t kib = 1024;
constexpr std::uint64_t mib = 1024 * kib;

// A JSON object of about `bytes` bytes, compressible: one long string.
std::string padded_object(const std::string& fields, std::size_t bytes) {
    return "{" + fields + std::string(fields.empty() ? "" : ", ") + "\"pad\": \"" + std::string(bytes, 'p') + "\"}";
}

// kelf-0.json naming `names`.
std::string kelf(const std::vector<std::string>& names) {
    std::string graphs;
    for (const auto& n : names) graphs += std::string(graphs.empty() ? "" : ", ") + R"({"name": ")" + n + "\"}";
    return R"({"graphs": [)" + graphs + "]}";
}

// One graph's JSON: def.json, and the five engines', each about `bytes`.
void add_graph(neff_builder& b, const std::string& name, std::size_t bytes) {
    b.members[name + "/def.json"] =
        padded_object(R"("var": {"t": {"type": "virtual", "size": 64, "backing_variable_off": 0}})", bytes);
    for (const auto e : engine_files) {
        b.members[name + "/" + std::string(e) + ".json"] = padded_object(R"("dma": [{"queue": "q"}])", bytes);
        b.members[name + "/" + std::string(e) + ".bin"] = neff_builder::instructions(2, 0x10);
    }
}

std::uint64_t bytes_of(const neff_builder& b, const std::vector<std::string>& members) {
    std::uint64_t n = 0;
    for (const auto& m : members) n += b.members.at(m).size();
    return n;
}

} // namespace

// The finding: 64 graphs named sg00, whose folder held 252 MiB of JSON, had
// it parsed 64 times over (35 to 55 minutes from a 258 KB file).
BOOST_AUTO_TEST_CASE(a_neff_whose_graphs_share_one_name_is_refused_before_any_graph_is_parsed) {
    auto b = neff_builder::one_core_minimal();
    add_graph(b, "sg00", 4 * mib);
    b.members["kelf-0.json"] = kelf(std::vector<std::string>(64, "sg00"));
    const auto bytes = t::wrap(t::gzip(b.tar(), 1));
    BOOST_TEST_MESSAGE("the NEFF: " << bytes.size() << " bytes");
    read_work work;
    BOOST_CHECK_EXCEPTION(read_neff(bytes, read_options{{}, &work}), neff_error, [](const neff_error& e) {
        return std::string(e.what()) == "kelf-0.json: two graphs are named \"sg00\"";
    });
    BOOST_TEST(work.json_members == 2u, "info.json and kelf-0.json only");
    BOOST_TEST(work.json_bytes == bytes_of(b, {"info.json", "kelf-0.json"}));
    BOOST_TEST(work.inflated_bytes == b.tar().size(), "the archive is inflated once");
}

BOOST_AUTO_TEST_CASE(each_json_member_is_parsed_once_however_many_graphs_read_it) {
    auto b = neff_builder::one_core_minimal();
    b.members.erase("sg00/PE.json");
    b.members.erase("sg00/PE.bin");
    std::vector<std::string> names;
    std::vector<std::string> json{"info.json", "kelf-0.json", "sg00/tensor_map.json"};
    for (int g = 0; g < 64; ++g) {
        names.push_back(fmt::format("sg{:02}", g));
        add_graph(b, names.back(), 64 * kib);
        json.push_back(names.back() + "/def.json");
        for (const auto e : engine_files) json.push_back(names.back() + "/" + std::string(e) + ".json");
    }
    b.members["kelf-0.json"] = kelf(names);
    read_work work;
    const auto info = read_neff(b.bytes(), read_options{{}, &work});
    BOOST_TEST(info.cores.size() == 64u);
    BOOST_TEST(info.cores[63].dma_transfers == 5u);
    BOOST_TEST(work.json_members == json.size(), "each of the " << json.size() << " JSON members once");
    BOOST_TEST(work.json_bytes == bytes_of(b, json));
}

BOOST_AUTO_TEST_CASE(a_stop_test_ends_inflating_within_64_kib) {
    auto b = neff_builder::two_core_matmul();
    b.members["debug_info/zeros.dbg"] = std::string(64 * mib, '\0'); // only measured, never kept
    const auto bytes = b.bytes();
    int asked = 0;
    read_work work;
    const read_options options{[&] { return ++asked > 10; }, &work};
    BOOST_CHECK_THROW(read_neff(bytes, options), read_cancelled);
    BOOST_TEST(asked == 11);
    BOOST_TEST(work.inflated_bytes <= 10 * 64 * kib);
    BOOST_TEST(work.json_members == 0u);
}

BOOST_AUTO_TEST_CASE(a_stop_test_ends_parsing_within_64_kib) {
    auto b = neff_builder::one_core_minimal();
    b.members["sg00/def.json"] = "[" + std::string(16 * mib, ' ') + "1]";
    read_work work;
    std::uint64_t asked_while_parsing = 0;
    const read_options options{[&] {
                                   // Every JSON member but def.json is small: asked in def.json.
                                   if (work.json_members == 3) ++asked_while_parsing;
                                   return asked_while_parsing == 2;
                               },
                               &work};
    BOOST_CHECK_THROW(read_neff(b.bytes(), options), read_cancelled);
    BOOST_TEST(work.json_members == 3u, "info.json, kelf-0.json, then sg00/def.json stopped");
    BOOST_TEST(asked_while_parsing == 2u);
}
