#pragma once

// Session files for the session file's tests: timelines written by hand
// with every field set, a field-by-field comparison, and files built byte
// by byte as docs/profile-session-format.md lays them out.

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
static_assert(sizeof(profile::throttle_record) == 24, "update sample_timeline() and expect_same()");
static_assert(sizeof(profile::core_figures) == 88, "update sample_timeline() and expect_same()");

namespace session_samples {

// ---- timelines written by hand

// Every field away from its default, the `none` sentinels both set and not,
// several engines, a stream index of UINT32_MAX followed by one more, times
// going back (negative deltas), cut DMA runs, faults and UTF-8 strings.
inline core_timeline sample_timeline() {
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
    auto copy = ins(1, 5, 2, base + 20'000, base + 90'000); // starts before the previous end
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
    // Two stretches under the limit, one of them ending where the next starts,
    // and one of no work.
    t.throttled = {
        {base + 2'000, base + 5'000, 1'140},
        {base + 5'000, base + 9'000, 4'000},
        {base + 9'000, base + 9'100, 0},
    };
    return t;
}

// An Inferentia core: no transfers, runs, semaphores or faults.
inline core_timeline inf1_timeline() {
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

inline void expect_same(const profile::instruction_record& got, const profile::instruction_record& want) {
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

inline void expect_same(const profile::transfer_record& got, const profile::transfer_record& want) {
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

inline void expect_same(const profile::dma_run_record& got, const profile::dma_run_record& want) {
    EXPECT_FIELD(start_ps);
    EXPECT_FIELD(end_ps);
    EXPECT_FIELD(bytes);
    EXPECT_FIELD(transfer);
    EXPECT_FIELD(engines);
    EXPECT_FIELD(cut);
}

inline void expect_same(const profile::semaphore_record& got, const profile::semaphore_record& want) {
    EXPECT_FIELD(at_ps);
    EXPECT_FIELD(index);
    EXPECT_FIELD(value);
}

inline void expect_same(const profile::fault_record& got, const profile::fault_record& want) {
    EXPECT_FIELD(at_ps);
    EXPECT_FIELD(kind);
    EXPECT_FIELD(status);
    EXPECT_FIELD(dma_engine);
}

inline void expect_same(const profile::throttle_record& got, const profile::throttle_record& want) {
    EXPECT_FIELD(start_ps);
    EXPECT_FIELD(end_ps);
    EXPECT_FIELD(work_ps);
}

inline void expect_same(const std::string& got, const std::string& want) { BOOST_TEST(got == want); }

template <typename Record>
void expect_same(const std::vector<Record>& got, const std::vector<Record>& want, std::string_view what) {
    BOOST_TEST_INFO(what);
    BOOST_TEST_REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        BOOST_TEST_CONTEXT(what << "[" << i << "]") { expect_same(got[i], want[i]); }
    }
}

inline void expect_same(const core_timeline& got, const core_timeline& want) {
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
    expect_same(got.throttled, want.throttled, "throttled");
}

// ---- files written byte by byte, as docs/profile-session-format.md says

inline std::string varint(std::uint64_t v) {
    std::string out;
    for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>(v | 0x80));
    out.push_back(static_cast<char>(v));
    return out;
}

inline std::string zigzag(std::int64_t v) {
    return varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
}

inline std::string text(std::string_view s) { return varint(s.size()) + std::string(s); }

inline std::string byte(unsigned b) { return std::string(1, static_cast<char>(b)); }

inline std::string names(std::initializer_list<std::string_view> list) {
    auto out = varint(list.size());
    for (const auto s : list) out += text(s);
    return out;
}

inline constexpr std::string_view file_header{"NEMUPROF\x02\x00\x00\x00", 12};

inline std::string file_of(std::initializer_list<std::string> records) {
    auto out = std::string(file_header) + varint(records.size());
    for (const auto& r : records) out += text(r);
    return out;
}

enum section : std::size_t {
    header,
    opcodes,
    sources,
    transfers,
    instructions,
    dma_runs,
    semaphores,
    faults,
    throttled
};
inline constexpr std::size_t section_count = 9;

// The header up to (not including) the execution number; then the rest.
inline std::string header_names_and_cores() {
    return text("trn1.2xlarge") + text("hand") + varint(0) + varint(1) + varint(1) + varint(1) + varint(0);
}
inline std::string header_after_execution() {
    return varint(1000) + varint(500) + varint(1'400'000'000) + varint(2'800'000'000) + varint(1'120'000'000) +
           varint(1'400'000'000) + varint(1'400'000'000) + varint(1'400'000'000) + varint(128) + varint(128) +
           varint(16) + varint(16) + varint(2) + varint(17) + varint(880);
}

// One transfer: issue delta, arrival, bytes per partition, partitions, DMA
// engines, queue, semaphore (+1), engine, from × 3 + to.
inline std::string transfer_bytes(unsigned engine = 4, unsigned memories = 1, unsigned semaphore_plus_one = 0) {
    return zigzag(2000) + varint(10) + varint(64) + varint(128) + varint(16) + varint(0) + varint(semaphore_plus_one) +
           varint(engine) + varint(memories);
}

// One instruction without optional fields past those `fields` names:
// engine, fields, opcode, index delta, start delta, duration, then `tail`.
inline std::string instruction_bytes(unsigned engine, unsigned fields, std::uint64_t opcode,
                                     const std::string& tail = "") {
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
        varint(2) + zigzag(1000) + varint(300) + varint(114) + zigzag(400) + varint(50) + varint(50),
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
inline void expect_refusal(std::string_view bytes, const std::string& expected) {
    try {
        (void)profile::decode_session(bytes);
        BOOST_ERROR("decoded; expected the refusal \"" << expected << "\"");
    } catch (const profile::session_error& e) {
        BOOST_TEST(std::string(e.what()) == expected);
    }
}

inline std::string at(std::size_t offset, std::string_view what) { return fmt::format("byte {}: {}", offset, what); }

} // namespace session_samples
