#define BOOST_TEST_MODULE text_template
#include "neuron/conformance/text_template.h"

#include <boost/test/unit_test.hpp>

#include <stdexcept>

using namespace neuron::conformance;

BOOST_AUTO_TEST_CASE(placeholders_are_lowercase_identifiers_in_braces) {
    const text_template t("neuron{device}/neuron_core{core}/stats/{counter_1}");
    BOOST_TEST(t.placeholders() == std::vector<std::string>({"device", "core", "counter_1"}),
               boost::test_tools::per_element());
    BOOST_TEST(t.expand({{"device", "3"}, {"core", "1"}, {"counter_1", "success"}}) ==
               "neuron3/neuron_core1/stats/success");
}

BOOST_AUTO_TEST_CASE(other_braces_are_plain_text) {
    for (const auto* text : {"[0-9a-f]{16}\n", "{}", "{ device}", "{Device}", "{1x}", "a{b", "}{", "{device"}) {
        const text_template t(text);
        BOOST_TEST(t.placeholders().empty(), "placeholders in '" << text << "'");
        BOOST_TEST(t.expand({}) == text);
    }
}

BOOST_AUTO_TEST_CASE(a_placeholder_beside_a_quantifier) {
    const text_template t("{prefix}[0-9]{2,3}");
    BOOST_TEST(t.placeholders() == std::vector<std::string>({"prefix"}), boost::test_tools::per_element());
    BOOST_TEST(t.expand({{"prefix", "x"}}) == "x[0-9]{2,3}");
}

BOOST_AUTO_TEST_CASE(a_value_is_inserted_as_it_is) {
    // A value holding braces is not expanded again.
    BOOST_TEST(text_template("{a}{b}").expand({{"a", "{b}"}, {"b", "2"}}) == "{b}2");
}

BOOST_AUTO_TEST_CASE(an_unbound_placeholder_is_a_logic_error) {
    BOOST_CHECK_THROW((void)text_template("{device}").expand({}), std::logic_error);
}
