#define BOOST_TEST_MODULE loaded_model
#include "neuron/model/program/debug_tensor_data.h"
#include "neuron/model/runtime/loaded_model.h"

#include <boost/test/unit_test.hpp>

#include <cstring>

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace neuron::model;

namespace {

using bytes = std::vector<std::uint8_t>;

fault_trigger on_execution(std::uint32_t status, std::uint64_t n, bool once = false) {
    fault_trigger f;
    f.status = status;
    f.kind = trigger_kind::on_execution;
    f.n = n;
    f.once = once;
    return f;
}

fault_trigger after_executions(std::uint32_t status, std::uint64_t n, bool once = false) {
    fault_trigger f;
    f.status = status;
    f.kind = trigger_kind::after_executions;
    f.n = n;
    f.once = once;
    return f;
}

fault_trigger probability(std::uint32_t status, double p, std::uint64_t seed, bool once = false) {
    fault_trigger f;
    f.status = status;
    f.kind = trigger_kind::probability;
    f.probability = p;
    f.seed = seed;
    f.once = once;
    return f;
}

loaded_model with_faults(std::vector<fault_trigger> faults) {
    compiled_model d;
    d.name = "faulty";
    d.faults = std::move(faults);
    return loaded_model(1, std::move(d), 0);
}

// The forced status of each of the next `count` executions.
std::vector<std::uint32_t> run(loaded_model& m, int count) {
    std::vector<std::uint32_t> statuses;
    for (int i = 0; i < count; ++i) statuses.push_back(m.begin_execution().forced_status);
    return statuses;
}

template <typename T>
bytes le(std::initializer_list<T> values) {
    bytes out;
    for (const auto v : values) {
        for (std::size_t i = 0; i < sizeof(T); ++i)
            out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
    }
    return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(executions_are_numbered_from_1) {
    auto m = with_faults({});
    for (std::uint64_t k = 1; k <= 5; ++k) {
        const auto next = m.begin_execution();
        BOOST_TEST(next.number == k);
        BOOST_TEST(next.forced_status == 0u);
    }
}

BOOST_AUTO_TEST_CASE(on_execution_fires_exactly_on_the_nth) {
    auto m = with_faults({on_execution(1006, 3)});
    const auto statuses = run(m, 10);
    for (std::size_t k = 1; k <= 10; ++k) BOOST_TEST(statuses[k - 1] == (k == 3 ? 1006u : 0u), "execution " << k);
}

BOOST_AUTO_TEST_CASE(after_executions_fires_on_every_later_one) {
    auto m = with_faults({after_executions(5, 2)});
    const auto statuses = run(m, 10);
    for (std::size_t k = 1; k <= 10; ++k) BOOST_TEST(statuses[k - 1] == (k > 2 ? 5u : 0u), "execution " << k);
    auto every = with_faults({after_executions(4, 0)});
    for (const auto s : run(every, 5)) BOOST_TEST(s == 4u);
}

BOOST_AUTO_TEST_CASE(a_seed_gives_the_same_sequence_in_every_instance) {
    auto first = with_faults({probability(5, 0.3, 42)});
    auto second = with_faults({probability(5, 0.3, 42)});
    auto other_seed = with_faults({probability(5, 0.3, 43)});
    const auto a = run(first, 1000);
    const auto b = run(second, 1000);
    const auto c = run(other_seed, 1000);
    BOOST_TEST(a == b, boost::test_tools::per_element());
    BOOST_TEST((a != c));
    BOOST_TEST(std::count(a.begin(), a.end(), 5u) > 0);
}

BOOST_AUTO_TEST_CASE(a_probability_fires_at_roughly_its_frequency) {
    auto m = with_faults({probability(1201, 0.25, 7)});
    const auto statuses = run(m, 10000);
    const auto hits = std::count(statuses.begin(), statuses.end(), 1201u);
    // Binomial(10000, 0.25): mean 2500, sd 43; 2200..2800 is 7 sd either side.
    BOOST_TEST(hits >= 2200);
    BOOST_TEST(hits <= 2800);
    BOOST_TEST(std::count(statuses.begin(), statuses.end(), 0u) == 10000 - hits);
}

BOOST_AUTO_TEST_CASE(probabilities_0_and_1_are_never_and_always) {
    auto never = with_faults({probability(5, 0.0, 1)});
    for (const auto s : run(never, 1000)) BOOST_TEST_REQUIRE(s == 0u);
    auto always = with_faults({probability(5, 1.0, 1)});
    for (const auto s : run(always, 1000)) BOOST_TEST_REQUIRE(s == 5u);
}

BOOST_AUTO_TEST_CASE(once_fires_once) {
    auto after = with_faults({after_executions(5, 2, true)});
    const auto statuses = run(after, 10);
    for (std::size_t k = 1; k <= 10; ++k) BOOST_TEST(statuses[k - 1] == (k == 3 ? 5u : 0u), "execution " << k);
    auto likely = with_faults({probability(4, 0.5, 3, true)});
    const auto drawn = run(likely, 200);
    BOOST_TEST(std::count(drawn.begin(), drawn.end(), 4u) == 1);
}

BOOST_AUTO_TEST_CASE(the_first_matching_trigger_wins) {
    auto m = with_faults({on_execution(5, 2), after_executions(1006, 1)});
    BOOST_TEST(run(m, 4) == std::vector<std::uint32_t>({0, 5, 1006, 1006}), boost::test_tools::per_element());
    auto reversed = with_faults({after_executions(1006, 1), on_execution(5, 2)});
    BOOST_TEST(run(reversed, 4) == std::vector<std::uint32_t>({0, 1006, 1006, 1006}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_once_trigger_that_lost_to_an_earlier_one_has_not_fired_yet) {
    auto m = with_faults({on_execution(5, 2), after_executions(4, 1, true)});
    BOOST_TEST(run(m, 4) == std::vector<std::uint32_t>({0, 5, 4, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_probability_draws_every_execution_whatever_else_is_declared) {
    auto alone = with_faults({probability(1006, 0.5, 9)});
    auto behind = with_faults({on_execution(4, 3), probability(1006, 0.5, 9)});
    const auto a = run(alone, 200);
    const auto b = run(behind, 200);
    for (std::size_t i = 0; i < a.size(); ++i) BOOST_TEST(b[i] == (i == 2 ? 4u : a[i]), "execution " << i + 1);
}

BOOST_AUTO_TEST_CASE(int32_data_holds_the_values) {
    BOOST_TEST(print_data("int32", 4, print_fill::iota, 99) == le<std::uint32_t>({0, 1, 2, 3}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("int32", 2, print_fill::value, -2) == le<std::uint32_t>({0xfffffffe, 0xfffffffe}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("int32", 3, print_fill::execution, 7) == le<std::uint32_t>({7, 7, 7}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(float32_data_holds_the_values) {
    BOOST_TEST(print_data("float32", 3, print_fill::iota, 0) == le<std::uint32_t>({0x00000000, 0x3f800000, 0x40000000}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float32", 2, print_fill::value, 1.5) == le<std::uint32_t>({0x3fc00000, 0x3fc00000}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float32", 1, print_fill::value, -0.1) == le<std::uint32_t>({0xbdcccccd}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float32", 2, print_fill::execution, 12) == le<std::uint32_t>({0x41400000, 0x41400000}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(float16_data_holds_the_values) {
    BOOST_TEST(print_data("float16", 4, print_fill::iota, 0) == le<std::uint16_t>({0x0000, 0x3c00, 0x4000, 0x4200}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float16", 1, print_fill::value, -2.5) == le<std::uint16_t>({0xc100}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float16", 1, print_fill::value, 65504) == le<std::uint16_t>({0x7bff}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float16", 1, print_fill::value, 1e6) == le<std::uint16_t>({0x7c00}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("float16", 2, print_fill::execution, 3) == le<std::uint16_t>({0x4200, 0x4200}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(bfloat16_data_holds_the_values) {
    BOOST_TEST(print_data("bfloat16", 3, print_fill::iota, 0) == le<std::uint16_t>({0x0000, 0x3f80, 0x4000}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("bfloat16", 1, print_fill::value, 1.5) == le<std::uint16_t>({0x3fc0}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("bfloat16", 1, print_fill::value, -256) == le<std::uint16_t>({0xc380}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("bfloat16", 2, print_fill::execution, 2) == le<std::uint16_t>({0x4000, 0x4000}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(uint8_data_holds_the_low_byte) {
    const auto iota = print_data("uint8", 300, print_fill::iota, 0);
    BOOST_TEST_REQUIRE(iota.size() == 300u);
    for (std::size_t i = 0; i < iota.size(); ++i) BOOST_TEST_REQUIRE(iota[i] == static_cast<std::uint8_t>(i));
    BOOST_TEST(print_data("uint8", 3, print_fill::value, 200) == bytes({200, 200, 200}),
               boost::test_tools::per_element());
    BOOST_TEST(print_data("uint8", 2, print_fill::execution, 5) == bytes({5, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(one_value_fills_every_element_of_any_count) {
    // The value is encoded once and copied: every count, not just powers of two.
    for (const std::uint64_t count : {1u, 2u, 3u, 7u, 1000u, 1025u}) {
        const auto data = print_data("int32", count, print_fill::value, -3);
        BOOST_TEST_REQUIRE(data.size() == count * 4);
        for (std::uint64_t i = 0; i < count; ++i) {
            std::int32_t v = 0;
            std::memcpy(&v, data.data() + i * 4, 4);
            BOOST_TEST_REQUIRE(v == -3, "element " << i << " of " << count);
        }
    }
    BOOST_TEST(print_data("bfloat16", 0, print_fill::value, 1).empty());
}

BOOST_AUTO_TEST_CASE(float_values_between_representable_ones_round_to_the_nearest) {
    // IEEE round-to-nearest-even, as numpy's astype and torch's .to() give.
    // bfloat16(0.1) = 0x3dcd (0.10009765625); keeping the high half of the float
    // gives 0x3dcc (0.099609375).
    BOOST_TEST(print_data("bfloat16", 1, print_fill::value, 0.1) == le<std::uint16_t>({0x3dcd}),
               boost::test_tools::per_element());
    // 1 + 3/4 of float16's last place rounds up to 0x3c01.
    BOOST_TEST(print_data("float16", 1, print_fill::value, 1.000732421875) == le<std::uint16_t>({0x3c01}),
               boost::test_tools::per_element());
    // 2^-24 is float16's smallest subnormal, not zero.
    BOOST_TEST(print_data("float16", 1, print_fill::value, 0x1.0p-24) == le<std::uint16_t>({0x0001}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(prints_carry_their_fill_and_source) {
    compiled_model d;
    d.name = "printer";
    d.prints.push_back({"count", "int32", {2, 2}, 0, print_fill::iota, 0});
    d.prints.push_back({"when", "uint8", {3}, 1, print_fill::execution, 0});
    d.prints.push_back({"half", "float32", {1}, 0, print_fill::value, 0.5});
    const loaded_model m(3, std::move(d), 17);
    BOOST_TEST(m.id() == 3u);
    BOOST_TEST(m.logical_core() == 17u);
    const auto events = m.prints(9, physical_core{5, 6});
    BOOST_TEST_REQUIRE(events.size() == 3u);
    for (const auto& e : events) {
        BOOST_TEST(e.device == 5u);
        BOOST_TEST(e.core == 6u);
    }
    BOOST_TEST(events[0].prefix == "count");
    BOOST_TEST(events[0].dtype == "int32");
    BOOST_TEST(events[0].shape == std::vector<std::uint64_t>({2, 2}), boost::test_tools::per_element());
    BOOST_TEST(events[0].pipe == 0u);
    BOOST_TEST(events[0].data == le<std::uint32_t>({0, 1, 2, 3}), boost::test_tools::per_element());
    BOOST_TEST(events[1].pipe == 1u);
    BOOST_TEST(events[1].data == bytes({9, 9, 9}), boost::test_tools::per_element());
    BOOST_TEST(events[2].data == le<std::uint32_t>({0x3f000000}), boost::test_tools::per_element());
}
