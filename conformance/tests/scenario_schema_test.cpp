#define BOOST_TEST_MODULE scenario_schema
// The published JSON Schema is what the parser's tables give, and it names
// every action with its keys.
#include "neuron/conformance/scenario_parser.h"

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

using namespace neuron::conformance;

BOOST_AUTO_TEST_CASE(the_published_schema_is_the_generated_one) {
    std::ifstream in(NEURON_PUBLISHED_SCHEMA);
    BOOST_TEST_REQUIRE(in.good(), "cannot read " NEURON_PUBLISHED_SCHEMA);
    std::ostringstream text;
    text << in.rdbuf();
    BOOST_TEST(text.str() == scenario_schema(),
               NEURON_PUBLISHED_SCHEMA " is out of date: write it anew with `neuron-conformance --schema`");
}

BOOST_AUTO_TEST_CASE(each_step_of_the_schema_has_one_action_and_its_keys) {
    const auto schema = YAML::Load(scenario_schema()); // JSON is YAML
    const auto steps = schema["$defs"]["step"]["oneOf"];
    BOOST_TEST_REQUIRE(steps.IsSequence());
    bool saw_read = false;
    for (const auto& step : steps) {
        BOOST_TEST(step["required"].size() == 1u);
        BOOST_TEST(step["additionalProperties"].as<bool>() == false);
        if (step["required"][0].as<std::string>() == "read") {
            saw_read = true;
            BOOST_TEST(step["properties"]["offset"].IsDefined());
            BOOST_TEST(step["properties"]["within"].IsDefined());
        }
        if (step["required"][0].as<std::string>() == "for_each") {
            BOOST_TEST(step["properties"]["do"]["$ref"].as<std::string>() == "#/$defs/steps");
        }
    }
    BOOST_TEST(saw_read);
    BOOST_TEST(steps.size() >= 30u);
    BOOST_TEST(schema["properties"]["requires"]["items"]["enum"].size() >= 9u);
    BOOST_TEST(schema["additionalProperties"].as<bool>() == false);
}
