#define BOOST_TEST_MODULE json_writer
#include "neuron/common/json_writer.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::common;

BOOST_AUTO_TEST_CASE(nested_values_are_indented_and_comma_separated) {
    json_writer json;
    json.begin_array()
        .begin_object()
        .key("name")
        .value("trn1.2xlarge")
        .key("devices")
        .value(std::uint32_t{1})
        .key("offset")
        .value(std::int64_t{-3})
        .key("ok")
        .value(true)
        .key("ids")
        .begin_array()
        .value(std::uint64_t{12})
        .value(std::uint64_t{3})
        .end_array()
        .end_object()
        .end_array();
    BOOST_TEST(json.str() == "[\n"
                             "  {\n"
                             "    \"name\": \"trn1.2xlarge\",\n"
                             "    \"devices\": 1,\n"
                             "    \"offset\": -3,\n"
                             "    \"ok\": true,\n"
                             "    \"ids\": [\n"
                             "      12,\n"
                             "      3\n"
                             "    ]\n"
                             "  }\n"
                             "]\n");
}

BOOST_AUTO_TEST_CASE(empty_containers_stay_on_one_line) {
    json_writer json;
    json.begin_object().key("a").begin_array().end_array().key("b").begin_object().end_object().end_object();
    BOOST_TEST(json.str() == "{\n  \"a\": [],\n  \"b\": {}\n}\n");
}

BOOST_AUTO_TEST_CASE(strings_are_escaped) {
    BOOST_TEST(json_escape("a\"b\\c") == "\"a\\\"b\\\\c\"");
    BOOST_TEST(json_escape("line\nnext\ttab") == "\"line\\nnext\\ttab\"");
    BOOST_TEST(json_escape(std::string_view("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
    BOOST_TEST(json_escape("Trainium2 \xc3\xa9") == "\"Trainium2 \xc3\xa9\"");
}

BOOST_AUTO_TEST_CASE(a_document_taken_in_pieces_is_the_same_document) {
    neuron::common::json_writer whole, pieces;
    std::string taken;
    for (auto* w : {&whole, &pieces}) {
        w->begin_object().key("a").begin_array();
        if (w == &pieces) taken += w->take();
        w->value(std::uint64_t{1}).value("two");
        if (w == &pieces) taken += w->take();
        w->end_array().key("b").value(true).end_object();
    }
    taken += pieces.take();
    BOOST_TEST(taken == whole.str());
    BOOST_TEST(pieces.str().empty());
}
