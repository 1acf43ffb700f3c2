#define BOOST_TEST_MODULE session_file_refusal
// The session file's refusals: every truncation, every bad count, index,
// value and bit flip is refused with its byte and what is wrong.
#include "session_file_samples.h"

using namespace session_samples;

BOOST_AUTO_TEST_SUITE(refusals)

BOOST_AUTO_TEST_CASE(another_magic) {
    auto bytes = hand_file{}.bytes();
    bytes[7] = 'G';
    expect_refusal(bytes, "byte 0: not a neuron-emu profile session file (no NEMUPROF header)");
    expect_refusal("", "byte 0: not a neuron-emu profile session file (no NEMUPROF header)");
}

BOOST_AUTO_TEST_CASE(another_version) {
    auto bytes = hand_file{}.bytes();
    bytes[8] = 1; // before the throttle's figures
    expect_refusal(bytes, "byte 8: session format version 1; this neuron-emu reads version 2");
    bytes[8] = 3;
    expect_refusal(bytes, "byte 8: session format version 3; this neuron-emu reads version 2");
    bytes[8] = 0;
    expect_refusal(bytes, "byte 8: session format version 0; this neuron-emu reads version 2");
    bytes[11] = 1; // big-endian 1
    expect_refusal(bytes, "byte 8: session format version 16777216; this neuron-emu reads version 2");
}

BOOST_AUTO_TEST_CASE(a_file_ending_inside_its_header) {
    expect_refusal(std::string_view("NEMUPROF\x02\x00", 10), "byte 10: the file ends inside its header");
}

BOOST_AUTO_TEST_CASE(a_file_cut_at_every_byte) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const auto bytes = profile::encode_session(timelines);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        BOOST_TEST_INFO("cut to " << n << " of " << bytes.size() << " bytes");
        BOOST_CHECK_THROW((void)profile::decode_session(std::string_view(bytes).substr(0, n)), profile::session_error);
    }
}

BOOST_AUTO_TEST_CASE(an_execution_cut_at_every_byte) {
    // The execution's length says where it ends: its own fields must stop there.
    const auto record = profile::encode_timeline(sample_timeline());
    for (std::size_t n = 0; n < record.size(); ++n) {
        BOOST_TEST_INFO("execution cut to " << n << " of " << record.size() << " bytes");
        BOOST_CHECK_THROW((void)profile::decode_session(file_of({record.substr(0, n)})), profile::session_error);
    }
}

BOOST_AUTO_TEST_CASE(throttled_work_beyond_the_throttled_time) {
    // At most full speed: no more work than the stretch's length.
    hand_file f;
    f.parts[throttled] = varint(1) + zigzag(1000) + varint(100) + varint(101);
    expect_refusal(f.bytes(), at(f.offset(throttled, f.parts[throttled].size()),
                                 "a throttled stretch's work (101 ps) exceeds its length (100 ps)"));
}

BOOST_AUTO_TEST_CASE(a_string_past_the_end_of_its_execution) {
    hand_file f;
    f.parts = {text("trn1.2xlarge") + varint(200) + "hand"};
    expect_refusal(f.bytes(), at(f.offset(header, 15), "the file ends inside the model name"));
}

BOOST_AUTO_TEST_CASE(bytes_after_the_last_execution) {
    const auto bytes = hand_file{}.bytes();
    expect_refusal(bytes + '\0', at(bytes.size(), "1 bytes follow the last execution"));
}

BOOST_AUTO_TEST_CASE(bytes_after_the_last_section_of_an_execution) {
    hand_file f;
    f.parts[throttled] += "\x07\x07";
    expect_refusal(f.bytes(), at(f.bytes().size() - 2, "2 bytes follow the end of an execution"));
}

BOOST_AUTO_TEST_CASE(an_execution_count_larger_than_the_file) {
    const auto bytes = std::string(file_header) + varint(1000) + text(hand_file{}.record());
    expect_refusal(bytes, at(14, "the execution count says 1000, more than the rest of the file holds"));
    expect_refusal(
        std::string(file_header) + varint(UINT64_MAX),
        at(22, fmt::format("the execution count says {}, more than the rest of the file holds", UINT64_MAX)));
}

BOOST_AUTO_TEST_CASE(an_execution_length_larger_than_the_file) {
    const auto bytes = std::string(file_header) + varint(1) + varint(1000) + "abc";
    expect_refusal(bytes, at(15, "the file ends inside an execution"));
}

BOOST_AUTO_TEST_CASE(a_record_count_larger_than_its_execution) {
    // Each before anything is allocated: 2^62 records would not fit memory,
    // and no execution holds more than 2^25 records of a kind or 16 faults.
    const std::uint64_t huge = std::uint64_t{1} << 62;
    const auto beyond_file = [&](std::string_view what, std::uint64_t n) {
        return fmt::format("{} says {}, more than the rest of the file holds", what, n);
    };
    const auto beyond_limit = [&](std::string_view what, std::uint64_t most) {
        return fmt::format("{} says {}, more than {}", what, huge, most);
    };
    const std::array<std::tuple<section, std::string_view, std::string>, 6> cases{{
        {opcodes, "the opcode names", beyond_file("the opcode names", huge)},
        {transfers, "the transfer count", beyond_limit("the transfer count", 1u << 25)},
        {instructions, "the instruction count", beyond_limit("the instruction count", 1u << 25)},
        {dma_runs, "the DMA run count", beyond_limit("the DMA run count", 1u << 25)},
        {semaphores, "the semaphore change count", beyond_limit("the semaphore change count", 1u << 25)},
        {faults, "the fault count", beyond_limit("the fault count", 16)},
    }};
    for (const auto& [s, what, message] : cases) {
        hand_file f;
        f.parts[s] = varint(huge);
        BOOST_TEST_CONTEXT(what) { expect_refusal(f.bytes(), at(f.offset(s, varint(huge).size()), message)); }
    }
    // Within the limit, but more than the file could hold.
    hand_file f;
    f.parts[instructions] = varint(1u << 20);
    expect_refusal(f.bytes(),
                   at(f.offset(instructions, varint(1u << 20).size()), beyond_file("the instruction count", 1u << 20)));
}

BOOST_AUTO_TEST_CASE(no_execution) {
    expect_refusal(std::string(file_header) + varint(0), at(13, "the file holds no execution"));
}

BOOST_AUTO_TEST_CASE(an_opcode_index_past_the_opcodes) {
    hand_file f;
    f.parts[instructions] = varint(1) + instruction_bytes(0, 0, 2);
    expect_refusal(f.bytes(), at(f.offset(instructions, 4), "an instruction's opcode is 2; there are 2"));
}

BOOST_AUTO_TEST_CASE(a_source_index_past_the_sources) {
    hand_file f;
    f.parts[instructions] = varint(1) + instruction_bytes(0, 2, 0, varint(1));
    const auto within = f.parts[instructions].size();
    expect_refusal(f.bytes(), at(f.offset(instructions, within), "an instruction's source is 1; there are 1"));
}

BOOST_AUTO_TEST_CASE(a_transfer_index_past_the_transfers) {
    hand_file f;
    f.parts[instructions] = varint(1) + instruction_bytes(0, 16, 0, varint(1));
    const auto within = f.parts[instructions].size();
    expect_refusal(f.bytes(), at(f.offset(instructions, within), "an instruction's transfer is 1; there are 1"));

    hand_file run;
    run.parts[dma_runs] = varint(1) + zigzag(0) + varint(0) + varint(0) + varint(1);
    const auto run_within = run.parts[dma_runs].size();
    expect_refusal(run.bytes(), at(run.offset(dma_runs, run_within), "a DMA run's transfer is 1; there are 1"));
}

BOOST_AUTO_TEST_CASE(an_engine_past_sync) {
    hand_file f;
    f.parts[instructions] = varint(1) + instruction_bytes(5, 0, 0);
    expect_refusal(f.bytes(), at(f.offset(instructions, 2), "an instruction's engine is 5, more than 4"));

    hand_file t;
    t.parts[transfers] = varint(1) + transfer_bytes(5);
    const auto within = t.parts[transfers].size() - 1; // the memories follow
    expect_refusal(t.bytes(), at(t.offset(transfers, within), "a transfer's engine is 5, more than 4"));
}

BOOST_AUTO_TEST_CASE(a_memory_pair_past_psum_to_psum) {
    hand_file f;
    f.parts[transfers] = varint(1) + transfer_bytes(4, 9);
    const auto within = f.parts[transfers].size();
    expect_refusal(f.bytes(), at(f.offset(transfers, within), "a transfer's memories is 9, more than 8"));
}

BOOST_AUTO_TEST_CASE(a_semaphore_past_65535) {
    hand_file f;
    f.parts[semaphores] = varint(1) + zigzag(0) + varint(65536) + varint(0);
    const auto within = f.parts[semaphores].size() - 1;
    expect_refusal(f.bytes(), at(f.offset(semaphores, within), "a semaphore is 65536, more than 65535"));

    hand_file t;
    t.parts[transfers] = varint(1) + transfer_bytes(4, 1, 65537);
    const auto t_within = t.parts[transfers].size() - 2;
    expect_refusal(t.bytes(), at(t.offset(transfers, t_within), "a transfer's semaphore is 65536; there are 65536"));
}

BOOST_AUTO_TEST_CASE(a_varint_over_64_bits) {
    hand_file ten;
    ten.parts[header] = header_names_and_cores() + std::string(9, '\xff') + byte(2) + header_after_execution();
    const auto within = header_names_and_cores().size() + 10;
    expect_refusal(ten.bytes(), at(ten.offset(header, within), "the execution number does not fit 64 bits"));

    hand_file eleven; // ten bytes that all go on
    eleven.parts[header] = header_names_and_cores() + std::string(10, '\x80') + byte(0) + header_after_execution();
    expect_refusal(eleven.bytes(), at(eleven.offset(header, within), "the execution number does not fit 64 bits"));
}

BOOST_AUTO_TEST_CASE(a_time_past_64_bits) {
    hand_file f;
    f.parts[header] =
        header_names_and_cores() + varint(1) + varint(UINT64_MAX) + varint(1) + header_after_execution().substr(4);
    const auto within = header_names_and_cores().size() + 1 + 10 + 1;
    expect_refusal(f.bytes(), at(f.offset(header, within), "the end is out of range"));
}

BOOST_AUTO_TEST_CASE(strings_over_their_limits) {
    hand_file name;
    name.parts[header] = text(std::string(257, 'x'));
    expect_refusal(name.bytes(), at(name.offset(header, 2), "the instance type is 257 bytes long, more than 256"));

    hand_file source;
    source.parts[sources] = varint(1) + text(std::string(4097, 's'));
    expect_refusal(source.bytes(), at(source.offset(sources, 3), "the sources is 4097 bytes long, more than 4096"));

    hand_file many;
    many.parts[opcodes] = varint(257) + std::string(257, '\0');
    expect_refusal(many.bytes(), at(many.offset(opcodes, 2), "the opcode names says 257, more than 256"));
}

BOOST_AUTO_TEST_CASE(single_bit_flips_decode_or_throw_session_error) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const auto bytes = profile::encode_session(timelines);
    std::mt19937_64 random(20240611);
    std::uniform_int_distribution<std::size_t> bit(0, bytes.size() * 8 - 1);
    int decoded = 0;
    int refused = 0;
    for (int i = 0; i < 4000; ++i) {
        auto flipped = bytes;
        const auto b = bit(random);
        flipped[b / 8] = static_cast<char>(flipped[b / 8] ^ (1 << (b % 8)));
        try {
            (void)profile::decode_session(flipped);
            ++decoded;
        } catch (const profile::session_error&) {
            ++refused;
        } catch (const std::exception& e) {
            BOOST_ERROR("bit " << b << ": " << typeid(e).name() << ": " << e.what());
        } catch (...) {
            BOOST_ERROR("bit " << b << ": an exception of another kind");
        }
    }
    BOOST_TEST_MESSAGE(decoded << " flips decoded, " << refused << " refused");
    BOOST_TEST(decoded + refused == 4000);
    BOOST_TEST(refused > 0);
}

BOOST_AUTO_TEST_SUITE_END()
