#define BOOST_TEST_MODULE json_reader
// The JSON reader NEFF members go through: RFC 8259 read in one pass, its
// values walked in document order, and what it refuses (with the line and
// column), its limits and its stop test.

#include "../src/json_reader.h"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace neuron::neff;
using detail::json_document;
using detail::json_limits;
using detail::json_value;
using kind = json_value::kind;

namespace {

// The message a document is refused with.
std::string refusal(const std::string& text, const json_limits& limits = {}) {
    try {
        json_document doc(text, "m.json", {}, limits);
    } catch (const neff_error& e) {
        return e.what();
    }
    BOOST_ERROR("read: " << text);
    return {};
}

} // namespace

BOOST_AUTO_TEST_CASE(values_are_walked_in_document_order) {
    const std::string text =
        R"( {"a": [1, -2.5e3, true, null, "x"], "b": {}, "c": [], "d": {"e": {"f": "g"}}, "h": 0} )";
    const json_document doc(text, "m.json", {});
    const auto root = doc.root();
    BOOST_TEST_REQUIRE(root.is_object());
    BOOST_TEST(root.size() == 5u);
    std::vector<std::string> keys;
    for (const auto member : root) keys.emplace_back(member.key());
    BOOST_TEST(keys == (std::vector<std::string>{"a", "b", "c", "d", "h"}), boost::test_tools::per_element());
    const auto a = root.find("a");
    BOOST_TEST_REQUIRE(a.has_value());
    std::vector<kind> kinds;
    std::vector<std::string> texts;
    for (const auto v : *a) {
        kinds.push_back(v.type());
        texts.emplace_back(v.text());
    }
    BOOST_TEST((kinds == std::vector<kind>{kind::number, kind::number, kind::boolean, kind::null, kind::string}));
    BOOST_TEST(texts == (std::vector<std::string>{"1", "-2.5e3", "true", "null", "x"}),
               boost::test_tools::per_element());
    BOOST_TEST(root.find("b")->size() == 0u);
    BOOST_TEST((root.find("b")->begin() == root.find("b")->end()));
    BOOST_TEST(root.find("c")->is_array());
    BOOST_TEST(root.find("d")->find("e")->find("f")->text() == "g");
    BOOST_TEST(root.find("h")->text() == "0");
    BOOST_TEST(!root.find("z").has_value());
    BOOST_TEST(!a->find("a").has_value(), "an array has no members");
}

BOOST_AUTO_TEST_CASE(escapes_are_unescaped) {
    const json_document doc(R"({"k\"ey": "a\\b\/c\n\t\u00e9\ud83d\ude00\ud800x"})", "m.json", {});
    const auto v = *doc.root().begin();
    BOOST_TEST(v.key() == "k\"ey");
    BOOST_TEST(v.text() == "a\\b/c\n\t\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx", "a lone surrogate is U+FFFD");
}

BOOST_AUTO_TEST_CASE(malformed_text_is_refused_with_its_line_and_column) {
    BOOST_TEST(refusal("{\n  \"a\": 1,\n  \"b\": [1, 2}\n}") == "m.json:3:13: malformed JSON: ',' or ']' expected");
    BOOST_TEST(refusal("") == "m.json:1:1: malformed JSON: the text ends where a value should be");
    BOOST_TEST(refusal(R"({"a": 1} x)") == "m.json:1:10: malformed JSON: more text follows the document");
    BOOST_TEST(refusal(R"({"a" 1})") == "m.json:1:6: malformed JSON: ':' expected after a member's key");
    BOOST_TEST(refusal(R"({a: 1})") == "m.json:1:2: malformed JSON: a member's key (a string) expected");
    BOOST_TEST(refusal(R"([1,])") == "m.json:1:4: malformed JSON: a value expected");
    BOOST_TEST(refusal(R"([01])") == "m.json:1:3: malformed JSON: ',' or ']' expected");
    BOOST_TEST(refusal(R"([1.])") == "m.json:1:4: malformed JSON: a digit expected after '.'");
    BOOST_TEST(refusal(R"([-])") == "m.json:1:3: malformed JSON: a digit expected");
    BOOST_TEST(refusal(R"([tru])") == "m.json:1:2: malformed JSON: a value expected");
    BOOST_TEST(refusal("[\"a\nb\"]") == "m.json:1:4: malformed JSON: a control character inside a string");
    BOOST_TEST(refusal(R"(["\q"])") == "m.json:1:4: malformed JSON: an unknown escape in a string");
    BOOST_TEST(refusal(R"(["\u12g4"])") == "m.json:1:7: malformed JSON: four hex digits expected after \\u");
    BOOST_TEST(refusal(R"({"a": [1)") == "m.json:1:9: malformed JSON: the text ends inside an array");
    BOOST_TEST(refusal(R"(["abc)") == "m.json:1:6: malformed JSON: the text ends inside a string");
    // Text from the file is escaped in the message.
    BOOST_TEST(refusal(R"({"a\u001b[31m": 1, "a\u001b[31m": 2})") ==
               "m.json: an object gives the key \"a\\x1b[31m\" twice");
}

BOOST_AUTO_TEST_CASE(values_and_nesting_are_bounded) {
    json_limits limits;
    limits.max_values = 4;
    BOOST_TEST(refusal("[1, 2, 3, 4]", limits) == "m.json: more than 4 JSON values");
    BOOST_CHECK_NO_THROW(json_document("[1, 2, 3]", "m.json", {}, limits));
    const auto deep = [](std::size_t n) { return std::string(n, '[') + std::string(n, ']'); };
    BOOST_TEST(refusal(deep(65)) == "m.json:1:65: malformed JSON: nested more than 64 deep");
    BOOST_CHECK_NO_THROW(json_document(deep(64), "m.json", {}));
    // A million values: no stack is involved, however they nest.
    std::string many = "[";
    for (int i = 0; i < 999'998; ++i) many += i == 0 ? "0" : ",0";
    BOOST_CHECK_NO_THROW(json_document(many + "]", "m.json", {}));
    BOOST_TEST(refusal(many + ",0,0]") == "m.json: more than 1000000 JSON values");
}

BOOST_AUTO_TEST_CASE(the_stop_test_is_asked_every_64_kib_of_text) {
    const std::string text = "[\"" + std::string(1 << 20, 's') + "\", " + std::string(1 << 20, ' ') + "1]";
    int asked = 0;
    BOOST_CHECK_NO_THROW(json_document(text, "m.json", [&] { return ++asked < 0; }));
    BOOST_TEST(asked >= 32, "asked " << asked << " times over 2 MiB");
    BOOST_TEST(asked <= 34);
    asked = 0;
    BOOST_CHECK_THROW(json_document(text, "m.json", [&] { return ++asked == 3; }), read_cancelled);
    BOOST_TEST(asked == 3);
}
