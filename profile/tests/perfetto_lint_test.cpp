#define BOOST_TEST_MODULE perfetto_lint
#include "neuron/profile/perfetto_lint.h"

#include "../src/protobuf_wire.h"
#include "neuron/profile/perfetto_writer.h"

#include <boost/test/unit_test.hpp>

#include <array>
#include <random>
#include <string>
#include <vector>

namespace pf = neuron::profile::perfetto;
namespace wire = neuron::profile::perfetto::wire;

namespace {

// Hand-built packets: absolute timestamps, one field helper per use.
std::string varint_field(std::uint32_t field, std::uint64_t v) {
    std::string out;
    wire::put_varint_field(out, field, v);
    return out;
}
std::string bytes_field(std::uint32_t field, std::string_view payload) {
    std::string out;
    wire::put_bytes_field(out, field, payload);
    return out;
}
std::string fixed64_field(std::uint32_t field, std::uint64_t v) {
    std::string out;
    wire::put_fixed64_field(out, field, v);
    return out;
}

std::string sequence(std::uint64_t id = 1) { return varint_field(10, id); }
std::string flags(std::uint64_t f) { return varint_field(13, f); }
std::string timestamp(std::uint64_t ts) { return varint_field(8, ts); }

std::string packet(std::string body) { return bytes_field(1, body); }

std::string first_packet() { return packet(sequence() + flags(1)); }

std::string descriptor(std::uint64_t uuid, std::string_view name, std::uint64_t parent = 0, bool counter = false) {
    auto d = varint_field(1, uuid) + bytes_field(2, name);
    if (parent != 0) d += varint_field(5, parent);
    if (counter) d += bytes_field(8, "");
    return packet(sequence() + bytes_field(60, d));
}

std::string interned_name(std::uint64_t iid, std::string_view name) {
    return bytes_field(12, bytes_field(2, varint_field(1, iid) + bytes_field(2, name)));
}

// A track event packet; `name_iid` 0 leaves the name out, `extra` is appended
// to the TrackEvent, `more` to the packet.
std::string event(std::uint64_t ts, int type, std::uint64_t track, std::uint64_t name_iid = 0,
                  std::string_view extra = {}, std::string_view more = {}) {
    auto e = varint_field(9, static_cast<std::uint64_t>(type)) + varint_field(11, track);
    if (name_iid != 0) e += varint_field(10, name_iid);
    e += extra;
    return packet(timestamp(ts) + sequence() + bytes_field(11, e) + flags(2) + std::string(more));
}

std::string counter_value(std::int64_t v) { return varint_field(30, static_cast<std::uint64_t>(v)); }
std::string flow(std::uint64_t id) { return fixed64_field(47, id); }
std::string terminating_flow(std::uint64_t id) { return fixed64_field(48, id); }

// Tracks 1 (slice "row A"), 2 (slice "row B"), 3 (counter "sem"); name iid 1 "MATMUL".
std::string header() {
    return first_packet() + descriptor(1, "row A") + descriptor(2, "row B") + descriptor(3, "sem", 0, true);
}

std::string clean() {
    return header() + event(10, pf::slice_begin, 1, 1, flow(77), interned_name(1, "MATMUL")) +
           event(12, pf::counter_event, 3, 0, counter_value(4)) + event(15, pf::slice_end, 1) +
           event(16, pf::slice_begin, 2, 1, terminating_flow(77)) + event(20, pf::slice_end, 2);
}

bool has(const std::vector<std::string>& problems, std::string_view text) {
    for (const auto& p : problems)
        if (p.find(text) != std::string::npos) return true;
    return false;
}

std::string joined(const std::vector<std::string>& problems) {
    std::string out;
    for (const auto& p : problems) out += p + "\n";
    return out;
}

// The trace has exactly one problem, and it says `text`.
void only(const std::string& trace, std::string_view text) {
    const auto problems = pf::lint(trace);
    BOOST_TEST(problems.size() == 1u, joined(problems));
    BOOST_TEST(has(problems, text), "expected '" << text << "' in:\n" << joined(problems));
}

std::string writer_sample() {
    pf::trace_writer w;
    const auto p = w.process(7, "proc");
    const auto a = w.track(p, "row A");
    const auto b = w.track(p, "row B");
    const auto c = w.counter_track(p, "sem");
    const std::array<pf::annotation, 2> args{{{"queue", std::string_view("qSyncIO0")}, {"n", std::int64_t{3}}}};
    const std::array<std::uint64_t, 1> f{5};
    w.begin(a, 100, "MATMUL", args, f);
    w.begin(a, 110, "inner");
    w.counter(c, 111, 1.5);
    w.end(a, 120);
    w.end(a, 130);
    w.instant(b, 140, "mark", args);
    w.begin(b, 150, "ACTIVATE");
    w.end(b, 160, f);
    return w.bytes();
}

} // namespace

BOOST_AUTO_TEST_CASE(a_clean_trace_has_no_problems) {
    BOOST_TEST(pf::lint(clean()).empty(), joined(pf::lint(clean())));
    BOOST_TEST(pf::lint(writer_sample()).empty(), joined(pf::lint(writer_sample())));
    BOOST_TEST(pf::lint("").empty());
    const auto t = pf::decode(clean());
    BOOST_TEST(t.tracks.size() == 3u);
    BOOST_TEST(t.events.size() == 5u);
    BOOST_TEST(t.events[3].terminating_flows == std::vector<std::uint64_t>{77});
}

BOOST_AUTO_TEST_CASE(an_event_before_its_descriptor) {
    only(first_packet() + event(10, pf::instant_event, 4, 1, {}, interned_name(1, "x")) + descriptor(4, "late"),
         "packet 1: an event on track 'late' (uuid 4) precedes its descriptor (packet 2)");
}

BOOST_AUTO_TEST_CASE(an_event_on_an_undeclared_track) {
    only(first_packet() + event(10, pf::instant_event, 9, 1, {}, interned_name(1, "x")),
         "packet 1: an event on track uuid 9, which no descriptor declares");
}

BOOST_AUTO_TEST_CASE(a_duplicate_uuid) {
    only(header() + descriptor(2, "row B again"),
         "packet 4: track uuid 2 ('row B again') is already declared in packet 2");
}

BOOST_AUTO_TEST_CASE(a_missing_parent) {
    only(header() + descriptor(4, "child", 40),
         "packet 4: track 'child' (uuid 4) has parent uuid 40, which no descriptor declares");
}

BOOST_AUTO_TEST_CASE(a_track_that_is_its_own_ancestor) {
    const auto problems = pf::lint(first_packet() + descriptor(1, "a", 2) + descriptor(2, "b", 1));
    BOOST_TEST(has(problems, "track 'a' (uuid 1) is its own ancestor"), joined(problems));
}

BOOST_AUTO_TEST_CASE(an_end_without_a_begin) {
    only(header() + event(10, pf::slice_end, 1), "packet 4: SLICE_END on track 'row A' (uuid 1) has no open slice");
}

BOOST_AUTO_TEST_CASE(an_end_on_another_track) {
    const auto problems = pf::lint(header() + event(10, pf::slice_begin, 1, 1, {}, interned_name(1, "MATMUL")) +
                                   event(15, pf::slice_end, 2));
    BOOST_TEST(problems.size() == 2u, joined(problems));
    BOOST_TEST(has(problems, "packet 5: SLICE_END on track 'row B' (uuid 2) has no open slice to end (slices are "
                             "open on 'row A' (uuid 1))"),
               joined(problems));
    BOOST_TEST(has(problems, "track 'row A' (uuid 1): slice 'MATMUL' begun in packet 4 is never ended"),
               joined(problems));
}

BOOST_AUTO_TEST_CASE(an_unclosed_slice) {
    only(header() + event(10, pf::slice_begin, 1, 1, {}, interned_name(1, "MATMUL")) +
             event(11, pf::slice_begin, 1, 1) + event(12, pf::slice_end, 1),
         "track 'row A' (uuid 1): slice 'MATMUL' begun in packet 4 is never ended");
}

BOOST_AUTO_TEST_CASE(a_decreasing_timestamp) {
    only(header() + event(10, pf::slice_begin, 1, 1, {}, interned_name(1, "MATMUL")) + event(9, pf::slice_end, 1),
         "packet 5: timestamp 9 ns goes back before 10 ns of packet 4");
}

BOOST_AUTO_TEST_CASE(an_undefined_iid) {
    only(header() + event(10, pf::instant_event, 1, 2, {}, interned_name(1, "MATMUL")),
         "packet 4: event name iid 2 is not defined earlier on the sequence");
    const auto annotation = bytes_field(4, varint_field(1, 5) + varint_field(4, 1));
    only(header() + event(10, pf::instant_event, 1, 1, annotation, interned_name(1, "MATMUL")),
         "packet 4: debug annotation name iid 5 is not defined earlier on the sequence");
    // Defined later is not defined earlier.
    only(header() + event(10, pf::instant_event, 1, 1) +
             event(11, pf::instant_event, 1, 1, {}, interned_name(1, "MATMUL")),
         "packet 4: event name iid 1 is not defined earlier on the sequence");
    BOOST_CHECK_THROW(pf::decode(header() + event(10, pf::instant_event, 1, 2, {}, interned_name(1, "MATMUL"))),
                      std::runtime_error);
}

BOOST_AUTO_TEST_CASE(a_counter_on_a_slice_track) {
    only(header() + event(10, pf::counter_event, 1, 0, counter_value(4)),
         "packet 4: COUNTER event on slice track 'row A' (uuid 1)");
}

BOOST_AUTO_TEST_CASE(a_slice_on_a_counter_track) {
    only(header() + event(10, pf::instant_event, 3, 1, {}, interned_name(1, "MATMUL")),
         "packet 4: INSTANT event on counter track 'sem' (uuid 3)");
}

BOOST_AUTO_TEST_CASE(a_flow_with_one_end) {
    only(header() + event(10, pf::slice_begin, 1, 1, flow(77), interned_name(1, "MATMUL")) +
             event(15, pf::slice_end, 1),
         "packet 4: flow 77 touches only one slice");
    // Begin and end of one slice are still one slice.
    only(header() + event(10, pf::slice_begin, 1, 1, flow(77), interned_name(1, "MATMUL")) +
             event(15, pf::slice_end, 1, 0, terminating_flow(77)),
         "packet 4: flow 77 touches only one slice");
    only(header() + event(10, pf::slice_begin, 1, 1, terminating_flow(78), interned_name(1, "MATMUL")) +
             event(15, pf::slice_end, 1),
         "packet 4: terminates flow 78, which no earlier event began");
}

BOOST_AUTO_TEST_CASE(mixed_sequence_ids) {
    auto trace = header();
    trace +=
        packet(timestamp(10) + sequence(2) +
               bytes_field(11, varint_field(9, pf::instant_event) + varint_field(11, 1) + bytes_field(23, "plain")));
    only(trace, "packet 4: trusted_packet_sequence_id 2 differs from packet 0's 1");
}

BOOST_AUTO_TEST_CASE(a_first_packet_that_does_not_clear_state) {
    only(packet(sequence() + flags(2)) + descriptor(1, "row A"),
         "packet 0: the first packet does not set SEQ_INCREMENTAL_STATE_CLEARED");
}

BOOST_AUTO_TEST_CASE(interned_names_without_the_needs_flag) {
    auto e = varint_field(9, pf::instant_event) + varint_field(11, 1) + varint_field(10, 1);
    only(header() + packet(timestamp(10) + sequence() + bytes_field(11, e) + interned_name(1, "MATMUL")),
         "packet 4: uses interned names or a delta clock but sets neither SEQ_NEEDS_INCREMENTAL_STATE");
}

BOOST_AUTO_TEST_CASE(every_truncation_is_caught_without_crashing) {
    const auto trace = writer_sample();
    // Packet boundaries: a cut there leaves whole packets.
    std::vector<bool> boundary(trace.size() + 1, false);
    {
        wire::reader in(trace);
        wire::field f;
        boundary[0] = true;
        while (in.next(f)) boundary[in.offset()] = true;
    }
    for (std::size_t n = 0; n < trace.size(); ++n) {
        const std::string_view cut(trace.data(), n);
        const auto problems = pf::lint(cut);
        if (boundary[n]) {
            BOOST_CHECK_NO_THROW(pf::decode(cut));
            continue;
        }
        BOOST_TEST(has(problems, "the trace does not decode: byte "), "cut at " << n << ":\n" << joined(problems));
        BOOST_CHECK_THROW(pf::decode(cut), std::runtime_error);
    }
}

BOOST_AUTO_TEST_CASE(random_bytes_never_crash) {
    std::mt19937_64 rng(20240611);
    const auto sample = writer_sample();
    std::size_t rejected = 0;
    for (int i = 0; i < 4000; ++i) {
        std::string bytes;
        if (i % 2 == 0) {
            bytes.resize(rng() % 200);
            for (auto& c : bytes) c = static_cast<char>(rng());
        } else {
            // A valid trace with a few bytes changed: deeper into the decoder.
            bytes = sample;
            for (int k = 0, flips = 1 + static_cast<int>(rng() % 4); k < flips; ++k)
                bytes[rng() % bytes.size()] = static_cast<char>(rng());
        }
        std::vector<std::string> problems;
        BOOST_REQUIRE_NO_THROW(problems = pf::lint(bytes));
        try {
            pf::decode(bytes);
        } catch (const std::runtime_error& e) {
            ++rejected;
            BOOST_TEST(std::string_view(e.what()).starts_with("byte "), e.what());
            BOOST_TEST(!problems.empty(), "decode rejected what lint passed: " << e.what());
        }
    }
    BOOST_TEST_MESSAGE(rejected << " of 4000 random inputs rejected by decode");
    BOOST_TEST(rejected > 1000u);
}

BOOST_AUTO_TEST_CASE(a_huge_length_is_refused_before_allocating) {
    // A packet claiming 2^62 bytes, and a packed flow list that is not whole.
    const std::string huge("\x0a\x80\x80\x80\x80\x80\x80\x80\x80\x40", 10);
    BOOST_CHECK_THROW(pf::decode(huge), std::runtime_error);
    BOOST_TEST(has(pf::lint(huge), "claims"));
    const auto packed = header() + packet(timestamp(1) + sequence() +
                                          bytes_field(11, varint_field(9, 3) + varint_field(11, 1) +
                                                              bytes_field(23, "x") + bytes_field(47, "1234567")));
    BOOST_TEST(has(pf::lint(packed), "not a multiple of 8"));
}
