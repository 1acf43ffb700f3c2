#define BOOST_TEST_MODULE session_file
#include "neuron/profile/session_file.h"

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace profile = neuron::profile;
using profile::core_timeline;
using profile::none;

// A new field in a record must reach sample_timeline() and expect_same():
// these sizes change with most additions (a guard, not a proof).
static_assert(sizeof(profile::instruction_record) == 64, "update sample_timeline() and expect_same()");
static_assert(sizeof(profile::transfer_record) == 48, "update sample_timeline() and expect_same()");
static_assert(sizeof(profile::dma_run_record) == 40, "update sample_timeline() and expect_same()");
static_assert(sizeof(profile::semaphore_record) == 16, "update sample_timeline() and expect_same()");
static_assert(sizeof(profile::core_figures) == 88, "update sample_timeline() and expect_same()");

namespace {

// ---- timelines written by hand

// Every field away from its default, the `none` sentinels both set and not,
// several engines, a stream index of UINT32_MAX followed by one more, times
// going back (negative deltas), cut DMA runs, faults and UTF-8 strings.
core_timeline sample_timeline() {
    core_timeline t;
    t.instance_type = "trn2.48xlarge";
    t.model_name = "matmul_activation \xc3\xbc\xe2\x9c\x93 \xf0\x9f\x94\xa5"; // ü ✓ 🔥
    t.device = 15;
    t.core = 7;
    t.logical_core = 3;
    t.lnc = 2;
    t.execution = 0x1'0000'0001ULL;
    t.status = 1006;
    t.start_ps = 10'261'883'214'000ULL;
    t.end_ps = t.start_ps + 6'133'777;
    auto& f = t.figures;
    f.core_clock_hz = 1'200'000'000;
    f.engine_clock_hz = {2'400'000'000, 960'000'000, 1'200'000'007, 0, 1'200'000'001};
    f.pe_rows = 127;
    f.pe_columns = 129;
    f.dma_engines = 32;
    f.queues_per_dma_engine = 31;
    f.dma_bytes_per_ns = 23;
    f.memory_bytes_per_ns = 2900;
    f.cores_per_device = 8;

    t.opcodes = {"nc_matmul", "activation", "dma_copy", "work", "tensor_tensor"};
    t.sources = {"kernel.py:12", "\xd1\x8f\xd0\xb4\xd1\x80\xd0\xbe.py:7 \xce\xbb", ""}; // ядро.py:7 λ

    const auto base = t.start_ps;
    t.transfers = {
        {base + 900'000, base + 900'500, 4096, 128, 16, 31, 65535, 4, profile::memory::hbm, profile::memory::sbuf},
        {base + 100'000, base + 100'000, 0, 1, 1, 0, none, 2, profile::memory::psum, profile::memory::hbm},
        {base + 5'000'000, base + 5'000'001, std::uint64_t{1} << 40, UINT32_MAX, 32, 17, 0, 0, profile::memory::sbuf,
         profile::memory::psum},
    };
    const auto ins = [](std::uint8_t engine, std::uint32_t index, std::uint32_t opcode, std::uint64_t start,
                        std::uint64_t end) {
        profile::instruction_record r;
        r.engine = engine;
        r.index = index;
        r.opcode = opcode;
        r.start_ps = start;
        r.end_ps = end;
        return r;
    };
    auto matmul = ins(0, 0, 0, base + 1'000, base + 63'000);
    matmul.macs = 128ULL * 128 * 512;
    matmul.source = 0;
    matmul.wait_semaphore = 3;
    matmul.wait_value = 2;
    matmul.signal_semaphore = 4;
    matmul.signal_increment = 1;
    matmul.weight_load_ps = 64'000;
    matmul.memories = profile::touches_sbuf | profile::touches_psum;
    matmul.row_groups = 4;
    auto bare = ins(0, 1, 3, base + 63'000, base + 70'000); // every optional field absent
    auto copy = ins(1, 5, 2, base + 20'000, base + 90'000);  // starts before the previous end
    copy.source = 1;
    copy.transfer = 0;
    copy.wait_semaphore = 65535;
    copy.wait_value = UINT32_MAX;
    copy.signal_semaphore = 0;
    copy.signal_increment = UINT32_MAX;
    copy.memories = profile::touches_sbuf;
    auto activation = ins(2, 0, 1, base + 90'000, base + 95'000);
    activation.source = 2;
    activation.memories = profile::touches_psum;
    activation.row_groups = 200; // over 127: a raw byte, not a varint
    activation.weight_load_ps = UINT32_MAX;
    auto last_index = ins(3, UINT32_MAX, 4, base + 95'000, base + 95'000); // no duration
    last_index.transfer = 2;
    last_index.macs = UINT64_MAX;
    auto after_last = ins(3, 0, 4, base + 96'000, base + 97'000); // the index wraps to 0
    auto sync = ins(4, 9, 2, base + 99'000, base + 6'133'777);
    sync.transfer = 1;
    sync.row_groups = 1;
    t.instructions = {matmul, bare, copy, activation, last_index, after_last, sync};

    t.dma_runs = {
        {base + 900'500, base + 1'900'500, 524'288, 0, 0xffff, false},
        {base + 100'000, base + 100'000, 0, 1, 0x8000'0001, true},
        {base + 5'000'001, base + 6'133'777, 999, 2, 1, true},
    };
    t.semaphores = {
        {base + 63'000, 4, 1},
        {base + 1'000, 65535, UINT32_MAX},
        {base + 6'000'000, 0, 0},
    };
    t.faults = {
        {base + 6'133'777, "dma_abort", 1006, 3},
        {0, "hbm_uncorrectable \xe2\x9a\xa0", UINT32_MAX, UINT32_MAX},
    };
    return t;
}

// An Inferentia core: no transfers, runs, semaphores or faults.
core_timeline inf1_timeline() {
    core_timeline t;
    t.instance_type = "inf1.xlarge";
    t.model_name = "add";
    t.core = 3;
    t.logical_core = 3;
    t.execution = 1;
    t.start_ps = 1'000'000'000'000ULL;
    t.end_ps = t.start_ps + 140'000'000;
    t.figures.core_clock_hz = 1'000'000'000;
    t.figures.engine_clock_hz = {1'000'000'000, 1'000'000'000, 1'000'000'000, 0, 0};
    t.figures.dma_engines = 16;
    t.figures.queues_per_dma_engine = 16;
    t.figures.dma_bytes_per_ns = 17;
    t.figures.memory_bytes_per_ns = 54;
    t.figures.cores_per_device = 4;
    t.opcodes = {"work"};
    profile::instruction_record r;
    r.start_ps = t.start_ps;
    r.end_ps = t.end_ps;
    r.macs = 12;
    r.row_groups = 4;
    t.instructions.push_back(r);
    r.engine = 1;
    r.end_ps = t.start_ps + 5'600'000;
    r.macs = 0;
    r.row_groups = 0;
    t.instructions.push_back(r);
    return t;
}

// ---- field-by-field comparison

template <typename T>
auto shown(const T& v) {
    if constexpr (std::is_enum_v<T>) {
        return static_cast<int>(v);
    } else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
        return static_cast<unsigned>(v); // not as a character
    } else {
        return v;
    }
}

#define EXPECT_FIELD(field)                                                                                            \
    do {                                                                                                               \
        BOOST_TEST_INFO(#field);                                                                                       \
        BOOST_TEST(shown(got.field) == shown(want.field));                                                             \
    } while (0)

void expect_same(const profile::instruction_record& got, const profile::instruction_record& want) {
    EXPECT_FIELD(start_ps);
    EXPECT_FIELD(end_ps);
    EXPECT_FIELD(macs);
    EXPECT_FIELD(index);
    EXPECT_FIELD(opcode);
    EXPECT_FIELD(source);
    EXPECT_FIELD(wait_semaphore);
    EXPECT_FIELD(wait_value);
    EXPECT_FIELD(signal_semaphore);
    EXPECT_FIELD(signal_increment);
    EXPECT_FIELD(transfer);
    EXPECT_FIELD(weight_load_ps);
    EXPECT_FIELD(engine);
    EXPECT_FIELD(memories);
    EXPECT_FIELD(row_groups);
}

void expect_same(const profile::transfer_record& got, const profile::transfer_record& want) {
    EXPECT_FIELD(issued_ps);
    EXPECT_FIELD(arrives_ps);
    EXPECT_FIELD(bytes_per_partition);
    EXPECT_FIELD(partitions);
    EXPECT_FIELD(dma_engines);
    EXPECT_FIELD(queue);
    EXPECT_FIELD(signal_semaphore);
    EXPECT_FIELD(engine);
    EXPECT_FIELD(from);
    EXPECT_FIELD(to);
}

void expect_same(const profile::dma_run_record& got, const profile::dma_run_record& want) {
    EXPECT_FIELD(start_ps);
    EXPECT_FIELD(end_ps);
    EXPECT_FIELD(bytes);
    EXPECT_FIELD(transfer);
    EXPECT_FIELD(engines);
    EXPECT_FIELD(cut);
}

void expect_same(const profile::semaphore_record& got, const profile::semaphore_record& want) {
    EXPECT_FIELD(at_ps);
    EXPECT_FIELD(index);
    EXPECT_FIELD(value);
}

void expect_same(const profile::fault_record& got, const profile::fault_record& want) {
    EXPECT_FIELD(at_ps);
    EXPECT_FIELD(kind);
    EXPECT_FIELD(status);
    EXPECT_FIELD(dma_engine);
}

void expect_same(const std::string& got, const std::string& want) { BOOST_TEST(got == want); }

template <typename Record>
void expect_same(const std::vector<Record>& got, const std::vector<Record>& want, std::string_view what) {
    BOOST_TEST_INFO(what);
    BOOST_TEST_REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        BOOST_TEST_CONTEXT(what << "[" << i << "]") { expect_same(got[i], want[i]); }
    }
}

void expect_same(const core_timeline& got, const core_timeline& want) {
    EXPECT_FIELD(instance_type);
    EXPECT_FIELD(model_name);
    EXPECT_FIELD(device);
    EXPECT_FIELD(core);
    EXPECT_FIELD(logical_core);
    EXPECT_FIELD(lnc);
    EXPECT_FIELD(execution);
    EXPECT_FIELD(status);
    EXPECT_FIELD(start_ps);
    EXPECT_FIELD(end_ps);
    EXPECT_FIELD(figures.core_clock_hz);
    for (std::size_t k = 0; k < profile::engine_count; ++k) {
        BOOST_TEST_CONTEXT("engine " << k) { EXPECT_FIELD(figures.engine_clock_hz[k]); }
    }
    EXPECT_FIELD(figures.pe_rows);
    EXPECT_FIELD(figures.pe_columns);
    EXPECT_FIELD(figures.dma_engines);
    EXPECT_FIELD(figures.queues_per_dma_engine);
    EXPECT_FIELD(figures.dma_bytes_per_ns);
    EXPECT_FIELD(figures.memory_bytes_per_ns);
    EXPECT_FIELD(figures.cores_per_device);
    expect_same(got.opcodes, want.opcodes, "opcodes");
    expect_same(got.sources, want.sources, "sources");
    expect_same(got.instructions, want.instructions, "instructions");
    expect_same(got.transfers, want.transfers, "transfers");
    expect_same(got.dma_runs, want.dma_runs, "dma_runs");
    expect_same(got.semaphores, want.semaphores, "semaphores");
    expect_same(got.faults, want.faults, "faults");
}

// ---- files written byte by byte, as docs/profile-session-format.md says

std::string varint(std::uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
}

std::string zigzag(std::int64_t v) {
    return varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
}

std::string text(std::string_view s) { return varint(s.size()) + std::string(s); }

std::string byte(unsigned b) { return std::string(1, static_cast<char>(b)); }

std::string names(std::initializer_list<std::string_view> list) {
    auto out = varint(list.size());
    for (const auto s : list) out += text(s);
    return out;
}

constexpr std::string_view file_header{"NEMUPROF\x01\x00\x00\x00", 12};

std::string file_of(std::initializer_list<std::string> records) {
    auto out = std::string(file_header) + varint(records.size());
    for (const auto& r : records) out += text(r);
    return out;
}

enum section : std::size_t { header, opcodes, sources, transfers, instructions, dma_runs, semaphores, faults };
constexpr std::size_t section_count = 8;

// The header up to (not including) the execution number; then the rest.
std::string header_names_and_cores() { return text("trn1.2xlarge") + text("hand") + varint(0) + varint(1) +
                                              varint(1) + varint(1) + varint(0); }
std::string header_after_execution() {
    return varint(1000) + varint(500) + varint(1'400'000'000) + varint(2'800'000'000) + varint(1'120'000'000) +
           varint(1'400'000'000) + varint(1'400'000'000) + varint(1'400'000'000) + varint(128) + varint(128) +
           varint(16) + varint(16) + varint(2) + varint(17) + varint(880);
}

// One transfer: issue delta, arrival, bytes per partition, partitions, DMA
// engines, queue, semaphore (+1), engine, from × 3 + to.
std::string transfer_bytes(unsigned engine = 4, unsigned memories = 1, unsigned semaphore_plus_one = 0) {
    return zigzag(2000) + varint(10) + varint(64) + varint(128) + varint(16) + varint(0) +
           varint(semaphore_plus_one) + varint(engine) + varint(memories);
}

// One instruction without optional fields past those `fields` names:
// engine, fields, opcode, index delta, start delta, duration, then `tail`.
std::string instruction_bytes(unsigned engine, unsigned fields, std::uint64_t opcode, const std::string& tail = "") {
    return byte(engine) + byte(fields) + varint(opcode) + zigzag(0) + zigzag(1000) + varint(100) + tail;
}

// One execution, section by section, each replaceable; offset() says where a
// section's byte lands in the file, for the "byte N" of a refusal.
struct hand_file {
    std::array<std::string, section_count> parts{
        header_names_and_cores() + varint(1) + header_after_execution(),
        names({"nc_matmul", "activation"}),
        names({"kernel.py:12"}),
        varint(1) + transfer_bytes(),
        varint(2) + instruction_bytes(0, 2 | 64, 0, varint(0) + byte(3) + byte(4)) +
            instruction_bytes(4, 16, 1, varint(0)),
        varint(1) + zigzag(2010) + varint(5) + varint(8192) + varint(0) + varint(0xffff) + varint(1),
        varint(1) + zigzag(1100) + varint(7) + varint(1),
        varint(1) + varint(1400) + text("dma_abort") + varint(1006) + varint(2),
    };

    std::string record() const {
        std::string out;
        for (const auto& p : parts) out += p;
        return out;
    }
    std::string bytes() const { return file_of({record()}); }
    std::size_t offset(section s, std::size_t within) const {
        auto at = file_header.size() + varint(1).size() + varint(record().size()).size() + within;
        for (std::size_t k = 0; k < s; ++k) at += parts[k].size();
        return at;
    }
};

// decode_session(bytes) throws session_error saying exactly `expected`.
void expect_refusal(std::string_view bytes, const std::string& expected) {
    try {
        (void)profile::decode_session(bytes);
        BOOST_ERROR("decoded; expected the refusal \"" << expected << "\"");
    } catch (const profile::session_error& e) {
        BOOST_TEST(std::string(e.what()) == expected);
    }
}

std::string at(std::size_t offset, std::string_view what) { return fmt::format("byte {}: {}", offset, what); }

} // namespace

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

BOOST_AUTO_TEST_CASE(session_file_of_records_is_encode_session) {
    const std::array timelines{sample_timeline(), inf1_timeline()};
    const std::array records{profile::encode_timeline(timelines[0]), profile::encode_timeline(timelines[1])};
    BOOST_TEST(profile::session_file(records) == profile::encode_session(timelines));
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

BOOST_AUTO_TEST_SUITE(refusals)

BOOST_AUTO_TEST_CASE(another_magic) {
    auto bytes = hand_file{}.bytes();
    bytes[7] = 'G';
    expect_refusal(bytes, "byte 0: not a neuron-emu profile session file (no NEMUPROF header)");
    expect_refusal("", "byte 0: not a neuron-emu profile session file (no NEMUPROF header)");
}

BOOST_AUTO_TEST_CASE(another_version) {
    auto bytes = hand_file{}.bytes();
    bytes[8] = 2;
    expect_refusal(bytes, "byte 8: session format version 2; this neuron-emu reads version 1");
    bytes[8] = 0;
    expect_refusal(bytes, "byte 8: session format version 0; this neuron-emu reads version 1");
    bytes[11] = 1; // big-endian 1
    expect_refusal(bytes, "byte 8: session format version 16777216; this neuron-emu reads version 1");
}

BOOST_AUTO_TEST_CASE(a_file_ending_inside_its_header) {
    expect_refusal(std::string_view("NEMUPROF\x01\x00", 10), "byte 10: the file ends inside its header");
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

BOOST_AUTO_TEST_CASE(a_string_past_the_end_of_its_execution) {
    hand_file f;
    f.parts = {text("trn1.2xlarge") + varint(200) + "hand"};
    expect_refusal(f.bytes(), at(f.offset(header, 15), "the file ends inside the model name"));
}

BOOST_AUTO_TEST_CASE(bytes_after_the_last_execution) {
    const auto bytes = hand_file{}.bytes();
    expect_refusal(bytes + '\0', at(bytes.size(), "1 bytes follow the last execution"));
}

BOOST_AUTO_TEST_CASE(bytes_after_the_faults_of_an_execution) {
    hand_file f;
    f.parts[faults] += "\x07\x07";
    expect_refusal(f.bytes(), at(f.bytes().size() - 2, "2 bytes follow the end of an execution"));
}

BOOST_AUTO_TEST_CASE(an_execution_count_larger_than_the_file) {
    const auto bytes = std::string(file_header) + varint(1000) + text(hand_file{}.record());
    expect_refusal(bytes, at(14, "the execution count says 1000, more than the rest of the file holds"));
    expect_refusal(std::string(file_header) + varint(UINT64_MAX),
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
    expect_refusal(f.bytes(), at(f.offset(instructions, varint(1u << 20).size()), beyond_file("the instruction count", 1u << 20)));
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
