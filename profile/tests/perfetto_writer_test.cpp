#define BOOST_TEST_MODULE perfetto_writer
#include "neuron/profile/perfetto_writer.h"

#include "../src/protobuf_wire.h"
#include "neuron/profile/perfetto_lint.h"

#include <boost/test/unit_test.hpp>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace pf = neuron::profile::perfetto;
namespace wire = neuron::profile::perfetto::wire;

// Counts heap allocations, so a test can show the steady state makes none.
// (g++ cannot see that these replacements pair malloc with free.)
namespace {
std::atomic<std::size_t> g_allocations{0};
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    ++g_allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

std::string hex(std::string_view bytes) {
    std::string out;
    for (const auto c : bytes) out += fmt::format("{:02x}", static_cast<std::uint8_t>(c));
    return out;
}

std::size_t count_of(std::string_view haystack, std::string_view needle) {
    std::size_t n = 0;
    for (auto at = haystack.find(needle); at != std::string_view::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
}

// A trace with every kind of track and event; the protoc test decodes it too.
struct sample {
    pf::trace_writer w;
    pf::uuid process, tensor, vector, semaphore;

    sample() {
        process = w.process(4242, "neuron-emu nc0");
        tensor = w.track(process, "Tensor Engine - Row 0");
        vector = w.track(process, "Vector Engine - Row 0");
        semaphore = w.counter_track(process, "S[5] (Tensor)");
        const std::array<pf::annotation, 4> args{{{"queue", std::string_view("qSyncIO0")},
                                                  {"delta", std::int64_t{-7}},
                                                  {"bytes", std::uint64_t{1} << 40},
                                                  {"utilisation", 0.625}}};
        const std::array<std::uint64_t, 1> flow{0xfeedfacecafebeefULL};
        w.begin(tensor, 10'261'883'214, "MATMUL", args, flow);
        w.counter(semaphore, 10'261'883'300, 3);
        w.end(tensor, 10'261'883'362);
        w.begin(vector, 10'261'883'400, "TENSOR_TENSOR", {}, flow);
        const std::array<pf::annotation, 1> queue{{{"queue", std::string_view("qSyncIO0")}}};
        w.instant(vector, 10'261'883'401, "semaphore wait", queue);
        w.counter(semaphore, 10'261'883'450, -2.5);
        w.end(vector, 10'261'883'500, flow);
        w.counter(semaphore, 10'261'883'600, 0x1p60);
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(varints_encode_at_their_boundaries) {
    const std::vector<std::pair<std::uint64_t, std::string>> cases{
        {0, "00"},
        {1, "01"},
        {127, "7f"},
        {128, "8001"},
        {300, "ac02"},
        {16383, "ff7f"},
        {16384, "808001"},
        {(1ULL << 21) - 1, "ffff7f"},
        {1ULL << 21, "80808001"},
        {(1ULL << 35) - 1, "ffffffff7f"},
        {1ULL << 35, "808080808001"},
        {1ULL << 63, "80808080808080808001"},
        {~0ULL, "ffffffffffffffffff01"},
    };
    for (const auto& [value, expected] : cases) {
        std::string out;
        wire::put_varint(out, value);
        BOOST_TEST(hex(out) == expected, "varint " << value);
        BOOST_TEST(wire::varint_size(value) == out.size(), "varint_size " << value);

        std::string field_bytes;
        wire::put_varint_field(field_bytes, 8, value);
        wire::reader in(field_bytes);
        wire::field f;
        BOOST_TEST_REQUIRE(in.next(f));
        BOOST_TEST(f.number == 8u);
        BOOST_TEST(f.value == value);
        BOOST_TEST(!in.next(f));
    }
}

BOOST_AUTO_TEST_CASE(varints_longer_than_64_bits_are_rejected) {
    for (const std::string& bad :
         {std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11),
          std::string("\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 12), std::string("\x08\x80", 2)}) {
        wire::reader in(bad);
        wire::field f;
        BOOST_CHECK_THROW(in.next(f), std::runtime_error);
    }
}

BOOST_AUTO_TEST_CASE(a_small_trace_decodes_to_what_was_written) {
    sample s;
    BOOST_TEST(pf::lint(s.w.bytes()).empty());
    const auto t = pf::decode(s.w.bytes());

    BOOST_TEST_REQUIRE(t.tracks.size() == 4u);
    BOOST_TEST(t.tracks[0].id == s.process);
    BOOST_TEST(t.tracks[0].pid.value_or(0) == 4242);
    BOOST_TEST(t.tracks[0].process_name == "neuron-emu nc0");
    BOOST_TEST(t.tracks[0].parent == 0u);
    BOOST_TEST(t.tracks[1].id == s.tensor);
    BOOST_TEST(t.tracks[1].name == "Tensor Engine - Row 0");
    BOOST_TEST(t.tracks[1].parent == s.process);
    BOOST_TEST(!t.tracks[1].counter);
    BOOST_TEST(!t.tracks[1].pid.has_value());
    BOOST_TEST(t.tracks[2].name == "Vector Engine - Row 0");
    BOOST_TEST(t.tracks[3].id == s.semaphore);
    BOOST_TEST(t.tracks[3].name == "S[5] (Tensor)");
    BOOST_TEST(t.tracks[3].counter);
    BOOST_TEST(t.tracks[3].parent == s.process);

    BOOST_TEST_REQUIRE(t.events.size() == 8u);
    const auto& matmul = t.events[0];
    BOOST_TEST(matmul.type == pf::slice_begin);
    BOOST_TEST(matmul.ts == 10'261'883'214u);
    BOOST_TEST(matmul.track == s.tensor);
    BOOST_TEST(matmul.name == "MATMUL");
    const std::vector<std::pair<std::string, std::string>> args{
        {"queue", "qSyncIO0"}, {"delta", "-7"}, {"bytes", "1099511627776"}, {"utilisation", "0.625"}};
    BOOST_TEST(matmul.args == args);
    BOOST_TEST(matmul.flows == std::vector<std::uint64_t>{0xfeedfacecafebeefULL});
    BOOST_TEST(matmul.terminating_flows.empty());

    BOOST_TEST(t.events[1].type == pf::counter_event);
    BOOST_TEST(t.events[1].track == s.semaphore);
    BOOST_TEST(t.events[1].ts == 10'261'883'300u);
    BOOST_TEST(t.events[1].counter_value == 3.0);

    BOOST_TEST(t.events[2].type == pf::slice_end);
    BOOST_TEST(t.events[2].track == s.tensor);
    BOOST_TEST(t.events[2].ts == 10'261'883'362u);

    BOOST_TEST(t.events[3].name == "TENSOR_TENSOR");
    BOOST_TEST(t.events[3].flows == std::vector<std::uint64_t>{0xfeedfacecafebeefULL});
    BOOST_TEST(t.events[4].type == pf::instant_event);
    BOOST_TEST(t.events[4].name == "semaphore wait");
    BOOST_TEST((t.events[4].args == std::vector<std::pair<std::string, std::string>>{{"queue", "qSyncIO0"}}));
    BOOST_TEST(t.events[5].counter_value == -2.5);
    BOOST_TEST(t.events[6].type == pf::slice_end);
    BOOST_TEST(t.events[6].terminating_flows == std::vector<std::uint64_t>{0xfeedfacecafebeefULL});
    BOOST_TEST(t.events[7].counter_value == 0x1p60);
}

BOOST_AUTO_TEST_CASE(every_prefix_after_a_call_is_a_whole_trace) {
    pf::trace_writer w;
    std::vector<std::size_t> sizes{w.bytes().size()};
    const auto p = w.process(1, "p");
    sizes.push_back(w.bytes().size());
    const auto t = w.track(p, "t");
    sizes.push_back(w.bytes().size());
    w.begin(t, 5, "a", std::array<pf::annotation, 1>{{{"k", std::string_view("v")}}});
    sizes.push_back(w.bytes().size());
    w.end(t, 9);
    sizes.push_back(w.bytes().size());
    for (const auto n : sizes) BOOST_CHECK_NO_THROW(pf::decode(std::string_view(w.bytes()).substr(0, n)));
}

BOOST_AUTO_TEST_CASE(counter_values_take_the_smaller_encoding) {
    pf::trace_writer w;
    const auto c = w.counter_track(0, "c");
    const auto size_of = [&](double v) {
        const auto before = w.bytes().size();
        w.counter(c, 1, v);
        return w.bytes().size() - before;
    };
    const auto small = size_of(5);      // int64, 1-byte varint
    const auto fraction = size_of(5.5); // double, 8 bytes
    const auto negative = size_of(-5);  // double beats a 10-byte int64 varint
    BOOST_TEST(small + 7 == fraction);
    BOOST_TEST(negative == fraction);
    const auto t = pf::decode(w.bytes());
    BOOST_TEST_REQUIRE(t.events.size() == 3u);
    BOOST_TEST(t.events[0].counter_value == 5.0);
    BOOST_TEST(t.events[1].counter_value == 5.5);
    BOOST_TEST(t.events[2].counter_value == -5.0);
}

BOOST_AUTO_TEST_CASE(each_name_is_written_once) {
    pf::trace_writer w;
    const auto p = w.process(1, "proc");
    const auto t = w.track(p, "row");
    const std::array<std::string_view, 3> names{"ACTIVATE_unique", "MATMUL_unique", "DMA_COPY_unique"};
    std::uint64_t ts = 0;
    for (int i = 0; i < 300; ++i) {
        const std::array<pf::annotation, 2> args{
            {{"queue_unique", std::string_view("qSyncIO0_unique")}, {"index_unique", std::int64_t{i}}}};
        w.begin(t, ts += 10, names[i % 3], args);
        w.end(t, ts += 5);
    }
    for (const auto n :
         {"ACTIVATE_unique", "MATMUL_unique", "DMA_COPY_unique", "queue_unique", "qSyncIO0_unique", "index_unique"})
        BOOST_TEST(count_of(w.bytes(), n) == 1u, n);
    const auto d = pf::decode(w.bytes());
    BOOST_TEST_REQUIRE(d.events.size() == 600u);
    BOOST_TEST(d.events[598].name == "DMA_COPY_unique"); // i = 299, 299 % 3 == 2
    BOOST_TEST(d.events[598].args[1].second == "299");
    BOOST_TEST(pf::lint(w.bytes()).empty());
}

// The budget: a begin+end pair on an existing track, name interned, no args,
// track uuid < 2^14, at most 36 bytes. Timestamps are deltas on the sequence's
// incremental clock, so the absolute time (here just under 2^35 ns) costs
// nothing; deltas below 2^21 ns (2.1 ms) keep each timestamp field within 4 bytes.
BOOST_AUTO_TEST_CASE(a_begin_end_pair_fits_36_bytes) {
    pf::trace_writer w;
    const auto p = w.process(1, "proc");
    pf::uuid row = 0;
    while (row < (1u << 14) - 1) row = w.track(p, "row");
    BOOST_TEST_REQUIRE(row == (1u << 14) - 1); // a 2-byte uuid varint
    std::uint64_t ts = (1ULL << 35) - (1ULL << 30);
    w.begin(row, ts, "MATMUL");
    w.end(row, ts += 100);

    std::size_t largest = 0;
    for (const std::uint64_t gap : {0ULL, 1ULL, 127ULL, 128ULL, 16383ULL, 16384ULL, (1ULL << 21) - 1})
        for (const std::uint64_t duration : {0ULL, 148ULL, 16384ULL, (1ULL << 21) - 1}) {
            const auto before = w.bytes().size();
            w.begin(row, ts += gap, "MATMUL");
            w.end(row, ts += duration);
            const auto pair = w.bytes().size() - before;
            BOOST_TEST(pair <= 36u, "gap " << gap << " duration " << duration << ": " << pair << " bytes");
            largest = std::max(largest, pair);
        }
    BOOST_TEST(ts < (1ULL << 35));
    BOOST_TEST(largest == 36u); // the worst case above is exactly the budget

    const auto before = w.bytes().size();
    w.begin(row, ts += 900, "MATMUL");
    w.end(row, ts += 148);
    BOOST_TEST_MESSAGE("a begin+end pair 900 ns after the previous event, 148 ns long: " << w.bytes().size() - before
                                                                                         << " bytes");
    BOOST_TEST(w.bytes().size() - before <= 34u);
    BOOST_TEST(pf::lint(w.bytes()).empty());
}

BOOST_AUTO_TEST_CASE(a_decreasing_timestamp_throws_and_writes_nothing) {
    pf::trace_writer w;
    const auto t = w.track(0, "row");
    const auto c = w.counter_track(0, "count");
    w.begin(t, 100, "a");
    const auto size = w.bytes().size();
    // A std::logic_error about time, not the invalid_argument of track misuse.
    const auto about_time = [](const std::logic_error& e) {
        return dynamic_cast<const std::invalid_argument*>(&e) == nullptr &&
               std::string_view(e.what()).find("before the previous event") != std::string_view::npos;
    };
    BOOST_CHECK_EXCEPTION(w.end(t, 99), std::logic_error, about_time);
    BOOST_CHECK_EXCEPTION(w.begin(t, 0, "b"), std::logic_error, about_time);
    BOOST_CHECK_EXCEPTION(w.instant(t, 50, "i"), std::logic_error, about_time);
    BOOST_CHECK_EXCEPTION(w.counter(c, 99, 1), std::logic_error, about_time);
    BOOST_TEST(w.bytes().size() == size);
    w.end(t, 100); // equal is fine
    BOOST_TEST(pf::lint(w.bytes()).empty());
}

BOOST_AUTO_TEST_CASE(misuse_of_tracks_throws) {
    pf::trace_writer w;
    const auto t = w.track(0, "row");
    const auto c = w.counter_track(t, "count");
    BOOST_CHECK_THROW(w.track(99, "orphan"), std::invalid_argument);
    BOOST_CHECK_THROW(w.begin(99, 1, "x"), std::invalid_argument);
    BOOST_CHECK_THROW(w.begin(c, 1, "x"), std::invalid_argument);
    BOOST_CHECK_THROW(w.counter(t, 1, 1), std::invalid_argument);
    BOOST_CHECK_THROW(w.end(t, 1), std::invalid_argument); // nothing open
    BOOST_TEST(pf::lint(w.bytes()).empty());
}

BOOST_AUTO_TEST_CASE(an_empty_writer_is_a_clean_trace) {
    pf::trace_writer w;
    BOOST_TEST(!w.bytes().empty());
    BOOST_TEST(pf::lint(w.bytes()).empty());
    const auto t = pf::decode(w.bytes());
    BOOST_TEST(t.tracks.empty());
    BOOST_TEST(t.events.empty());
}

BOOST_AUTO_TEST_CASE(steady_state_events_do_not_allocate) {
    pf::trace_writer w;
    const auto t = w.track(0, "row");
    const auto c = w.counter_track(0, "count");
    const std::array<pf::annotation, 1> args{{{"queue", std::string_view("qSyncIO0")}}};
    const std::array<std::uint64_t, 1> flow{7};
    std::uint64_t ts = 0;
    const auto round = [&] {
        w.begin(t, ts += 3, "MATMUL", args, flow);
        w.instant(t, ts += 1, "wait", args);
        w.counter(c, ts, 2.5);
        w.end(t, ts += 2, flow);
    };
    round(); // interns the names, sizes the scratch buffers
    w.reserve(w.bytes().size() + std::size_t{100'000} * 120);
    const auto before = g_allocations.load();
    for (int i = 0; i < 100'000; ++i) round();
    BOOST_TEST(g_allocations.load() - before == 0u);
}

// Its speed is for a benchmark (bench/) to measure, not a timed test.
BOOST_AUTO_TEST_CASE(two_million_events_take_under_40_bytes_a_pair) {
    pf::trace_writer w;
    const auto p = w.process(1, "proc");
    std::array<pf::uuid, 8> rows{};
    for (auto& r : rows) r = w.track(p, "row");
    std::vector<std::string> names;
    names.reserve(64);
    for (int i = 0; i < 64; ++i) names.push_back(fmt::format("OPCODE_{}", i));

    std::uint64_t ts = 1'000'000'000;
    for (std::size_t i = 0; i < 1'000'000; ++i) {
        const auto row = rows[i % rows.size()];
        w.begin(row, ts += 37, names[i % names.size()]);
        w.end(row, ts += 64);
    }
    BOOST_TEST(w.bytes().size() < 40'000'000u);
}

// Writes the sample trace to $NEURON_PFTRACE_OUT for the protoc ctest
// (tests/CMakeLists.txt); on its own it checks the sample is clean.
BOOST_AUTO_TEST_CASE(sample_trace_file) {
    sample s;
    BOOST_TEST(pf::lint(s.w.bytes()).empty());
    const char* path = std::getenv("NEURON_PFTRACE_OUT");
    if (path == nullptr) return;
    std::FILE* f = std::fopen(path, "wb");
    BOOST_TEST_REQUIRE(f != nullptr, "cannot open " << path);
    const auto written = std::fwrite(s.w.bytes().data(), 1, s.w.bytes().size(), f);
    BOOST_TEST(std::fclose(f) == 0);
    BOOST_TEST(written == s.w.bytes().size());
}
