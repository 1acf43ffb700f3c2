#define BOOST_TEST_MODULE session_file
// The session file: every field comes back, the same timelines give the
// same bytes. Refusals: session_file_refusal_test.cpp.
#include "session_file_samples.h"

using namespace session_samples;

BOOST_AUTO_TEST_SUITE(round_trip)

BOOST_AUTO_TEST_CASE(every_field_of_a_timeline_comes_back) {
    const std::array timelines{sample_timeline()};
    const auto decoded = profile::decode_session(profile::encode_session(timelines));
    BOOST_TEST_REQUIRE(decoded.size() == 1u);
    expect_same(decoded[0], timelines[0]);
}

BOOST_AUTO_TEST_CASE(an_empty_timeline_comes_back) {
    const std::array timelines{core_timeline{}};
    const auto decoded = profile::decode_session(profile::encode_session(timelines));
    BOOST_TEST_REQUIRE(decoded.size() == 1u);
    expect_same(decoded[0], timelines[0]);
}

BOOST_AUTO_TEST_CASE(two_timelines_come_back_in_order) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const auto bytes = profile::encode_session(timelines);
    // NEURON_SESSION_OUT=FILE writes the file (fuzz/corpus/profile_session/ seed).
    if (const char* out = std::getenv("NEURON_SESSION_OUT")) std::ofstream(out, std::ios::binary) << bytes;
    const auto decoded = profile::decode_session(bytes);
    BOOST_TEST_REQUIRE(decoded.size() == 2u);
    BOOST_TEST_CONTEXT("first") { expect_same(decoded[0], timelines[0]); }
    BOOST_TEST_CONTEXT("second") { expect_same(decoded[1], timelines[1]); }
}

BOOST_AUTO_TEST_CASE(a_hand_written_file_decodes_as_documented) {
    const auto decoded = profile::decode_session(hand_file{}.bytes());
    BOOST_TEST_REQUIRE(decoded.size() == 1u);
    const auto& t = decoded[0];
    BOOST_TEST(t.instance_type == "trn1.2xlarge");
    BOOST_TEST(t.model_name == "hand");
    BOOST_TEST(t.core == 1u);
    BOOST_TEST(t.logical_core == 1u);
    BOOST_TEST(t.start_ps == 1000u);
    BOOST_TEST(t.end_ps == 1500u);
    BOOST_TEST(t.figures.engine_clock_hz[0] == 2'800'000'000u);
    BOOST_TEST(t.figures.cores_per_device == 2u);
    BOOST_TEST(t.figures.memory_bytes_per_ns == 880u);
    BOOST_TEST(t.opcodes == (std::vector<std::string>{"nc_matmul", "activation"}), boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(t.transfers.size() == 1u);
    BOOST_TEST(t.transfers[0].issued_ps == 2000u);
    BOOST_TEST(t.transfers[0].arrives_ps == 2010u);
    BOOST_TEST(t.transfers[0].bytes() == 8192u);
    BOOST_TEST(static_cast<int>(t.transfers[0].to) == static_cast<int>(profile::memory::sbuf));
    BOOST_TEST_REQUIRE(t.instructions.size() == 2u);
    BOOST_TEST(t.instructions[0].start_ps == 1000u);
    BOOST_TEST(t.instructions[0].end_ps == 1100u);
    BOOST_TEST(t.instructions[0].source == 0u);
    BOOST_TEST(t.instructions[0].memories == 3u);
    BOOST_TEST(t.instructions[0].row_groups == 4u);
    BOOST_TEST(t.instructions[1].index == 1u); // delta 0 from the previous index + 1
    BOOST_TEST(t.instructions[1].start_ps == 2100u);
    BOOST_TEST(t.instructions[1].engine == 4u);
    BOOST_TEST(t.instructions[1].transfer == 0u);
    BOOST_TEST(t.instructions[1].source == none);
    BOOST_TEST_REQUIRE(t.dma_runs.size() == 1u);
    BOOST_TEST(t.dma_runs[0].cut);
    BOOST_TEST(t.dma_runs[0].end_ps == 2015u);
    BOOST_TEST_REQUIRE(t.semaphores.size() == 1u);
    BOOST_TEST(t.semaphores[0].index == 7u);
    BOOST_TEST_REQUIRE(t.faults.size() == 1u);
    BOOST_TEST(t.faults[0].kind == "dma_abort");
    BOOST_TEST(t.faults[0].dma_engine == 2u);
    BOOST_TEST_REQUIRE(t.throttled.size() == 2u);
    BOOST_TEST(t.throttled[0].start_ps == 1000u);
    BOOST_TEST(t.throttled[0].end_ps == 1300u);
    BOOST_TEST(t.throttled[0].work_ps == 114u);
    BOOST_TEST(t.throttled[1].start_ps == 1400u); // 400 after the previous start
    BOOST_TEST(t.throttled[1].end_ps == 1450u);
    BOOST_TEST(t.throttled[1].work_ps == 50u);
}

BOOST_AUTO_TEST_CASE(the_largest_varint_is_read) {
    hand_file f;
    f.parts[header] = header_names_and_cores() + std::string(9, '\xff') + byte(1) + header_after_execution();
    const auto decoded = profile::decode_session(f.bytes());
    BOOST_TEST_REQUIRE(decoded.size() == 1u);
    BOOST_TEST(decoded[0].execution == UINT64_MAX);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(determinism)

BOOST_AUTO_TEST_CASE(the_same_timelines_give_the_same_bytes) {
    const std::array first{sample_timeline(), inf1_timeline()};
    const std::array second{sample_timeline(), inf1_timeline()};
    BOOST_TEST(profile::encode_session(first) == profile::encode_session(second));
}

BOOST_AUTO_TEST_CASE(a_decoded_file_encodes_back_to_its_bytes) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const auto bytes = profile::encode_session(timelines);
    BOOST_TEST(profile::encode_session(profile::decode_session(bytes)) == bytes);
}

BOOST_AUTO_TEST_CASE(a_session_file_within_its_bound_is_the_same_bytes) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const auto bytes = profile::encode_session(timelines);
    const std::array pointers{&timelines[0], &timelines[1]};
    BOOST_TEST(profile::encode_session(pointers, bytes.size()) == bytes);
}

BOOST_AUTO_TEST_CASE(a_session_file_past_its_bound_is_refused) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const auto size = profile::encode_session(timelines).size();
    const std::array pointers{&timelines[0], &timelines[1]};
    for (const auto most : {std::size_t{0}, std::size_t{12}, size / 2, size - 1}) {
        BOOST_TEST_INFO("at most " << most << " of " << size << " bytes");
        BOOST_CHECK_EXCEPTION((void)profile::encode_session(pointers, most), profile::session_too_large,
                              [&](const profile::session_too_large& e) {
                                  return std::string(e.what()).find(fmt::format("larger than {} bytes", most)) !=
                                         std::string::npos;
                              });
    }
}

BOOST_AUTO_TEST_CASE(a_timeline_footprint_counts_its_records) {
    auto t = sample_timeline();
    const auto before = profile::footprint(t);
    t.instructions.reserve(t.instructions.capacity() + 1000);
    BOOST_TEST(profile::footprint(t) >= before + 1000 * sizeof(profile::instruction_record));
    BOOST_TEST(profile::footprint(core_timeline{}) >= sizeof(core_timeline));
}

BOOST_AUTO_TEST_CASE(the_file_starts_with_magic_version_and_count) {
    const std::array timelines{inf1_timeline(), inf1_timeline()};
    const auto bytes = profile::encode_session(timelines);
    BOOST_TEST(bytes.substr(0, 13) == std::string(file_header) + byte(2));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(looks_like_session)

BOOST_AUTO_TEST_CASE(a_session_file_looks_like_one) {
    const std::array timelines{inf1_timeline()};
    BOOST_TEST(profile::looks_like_session(profile::encode_session(timelines)));
    BOOST_TEST(profile::looks_like_session("NEMUPROF"));
}

BOOST_AUTO_TEST_CASE(other_bytes_do_not) {
    BOOST_TEST(!profile::looks_like_session(""));
    BOOST_TEST(!profile::looks_like_session("NEMUPRO"));
    BOOST_TEST(!profile::looks_like_session("nemuprof\x01\x00\x00\x00"));
    BOOST_TEST(!profile::looks_like_session("neuron_emu_model: 1\nname: add\n"));
    BOOST_TEST(!profile::looks_like_session(std::string_view("\0NEMUPROF", 9)));
}

BOOST_AUTO_TEST_SUITE_END()
