#define BOOST_TEST_MODULE looped_stream
#include "neuron/model/program/looped_stream.h"

#include <boost/test/unit_test.hpp>

#include <vector>

// A looped stream keeps its text; a cursor walks what runs, trip by trip,
// with the per-trip changes of the loops it is in.

using namespace neuron::model;

namespace {

struct op {
    int id = 0;
};

// [0, loop 3 {1, loop 2 {2}}, 3]
looped_stream<op> nested() {
    looped_stream<op> s;
    s.push_back({0});
    s.begin_loop(3, 64, {{every_semaphore, 2}});
    s.push_back({1});
    s.begin_loop(2, 8, {{5, 1}});
    s.push_back({2});
    s.end_loop();
    s.end_loop();
    s.push_back({3});
    return s;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_cursor_runs_the_loops_trip_by_trip) {
    const auto s = nested();
    std::vector<int> ran;
    std::vector<std::uint64_t> positions;
    for (auto c = s.begin(); !c.done(); ++c) {
        ran.push_back(c->id);
        positions.push_back(c.position());
    }
    BOOST_TEST(ran == (std::vector<int>{0, 1, 2, 2, 1, 2, 2, 1, 2, 2, 3}), boost::test_tools::per_element());
    for (std::size_t i = 0; i < positions.size(); ++i) BOOST_TEST(positions[i] == i);
    BOOST_TEST(s.size() == 11u);
    BOOST_TEST(s.text().size() == 4u);
}

BOOST_AUTO_TEST_CASE(per_trip_changes_add_up_over_the_loops_an_instruction_is_in) {
    const auto s = nested();
    std::vector<std::uint64_t> waits_on_5, waits_on_1, offsets;
    for (auto c = s.begin(); !c.done(); ++c) {
        if (c->id != 2) continue;
        waits_on_5.push_back(c.wait_value(5, 10));
        waits_on_1.push_back(c.wait_value(1, 10));
        offsets.push_back(c.offset(100));
    }
    // Outer trip t adds 2t to any wait; inner trip u adds u to waits on 5.
    BOOST_TEST(waits_on_5 == (std::vector<std::uint64_t>{10, 11, 12, 13, 14, 15}), boost::test_tools::per_element());
    BOOST_TEST(waits_on_1 == (std::vector<std::uint64_t>{10, 10, 12, 12, 14, 14}), boost::test_tools::per_element());
    BOOST_TEST(offsets == (std::vector<std::uint64_t>{100, 108, 164, 172, 228, 236}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(counts_come_from_the_text_and_saturate) {
    looped_stream<op> s;
    s.begin_loop(std::uint64_t{1} << 40);
    s.begin_loop(std::uint64_t{1} << 40);
    s.push_back({1});
    s.push_back({2});
    s.end_loop();
    s.end_loop();
    BOOST_TEST(s.size() == UINT64_MAX);
    BOOST_TEST(s.text().size() == 2u);
    std::uint64_t runs = 0;
    each_with_runs(s, [&](const op&, std::uint64_t n) { runs = n; });
    BOOST_TEST(runs == UINT64_MAX);

    looped_stream<op> ten_million;
    ten_million.begin_loop(10'000'000);
    ten_million.push_back({1});
    ten_million.end_loop();
    BOOST_TEST(ten_million.size() == 10'000'000u);
    BOOST_TEST(ten_million.blocks().size() == 2u);
}

BOOST_AUTO_TEST_CASE(a_loop_needs_trips_a_body_and_bounded_nesting) {
    looped_stream<op> s;
    BOOST_CHECK_THROW(s.begin_loop(0), neuron::model::invalid_argument_error);
    s.begin_loop(2);
    BOOST_CHECK_THROW(s.end_loop(), neuron::model::invalid_argument_error);
    BOOST_TEST(!s.complete());
    looped_stream<op> deep;
    for (std::size_t d = 0; d < max_loop_depth; ++d) deep.begin_loop(2);
    BOOST_CHECK_THROW(deep.begin_loop(2), neuron::model::invalid_argument_error);
    looped_stream<op> none;
    BOOST_CHECK_THROW(none.end_loop(), neuron::model::invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(mapping_keeps_the_loops_and_maps_each_written_instruction_once) {
    const auto s = nested();
    int calls = 0;
    const auto m = s.map<int>([&](const op& o) {
        ++calls;
        return o.id * 10;
    });
    BOOST_TEST(calls == 4);
    std::vector<int> ran(m.begin(), m.end());
    BOOST_TEST(ran == (std::vector<int>{0, 10, 20, 20, 10, 20, 20, 10, 20, 20, 30}), boost::test_tools::per_element());
}
