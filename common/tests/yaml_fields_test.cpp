#define BOOST_TEST_MODULE yaml_fields
#include "neuron/common/yaml_fields.h"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <chrono>
#include <string>

using neuron::common::yaml_error;
using neuron::common::yaml_fields;

namespace {

// The message load() refuses `text` with ("" when it is accepted).
std::string refusal(const std::string& text, const std::string& source = "f") {
    try {
        (void)yaml_fields(source).load(text);
        return "";
    } catch (const yaml_error& e) {
        return e.what();
    }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// "a0: &a0 [x, x, ..., x]", then each level a list of `width` aliases of the level below.
std::string alias_bomb(int levels, int width) {
    std::string text = "a0: &a0 [";
    for (int i = 0; i < width; ++i) text += i == 0 ? "x" : ", x";
    text += "]\n";
    for (int level = 1; level < levels; ++level) {
        text += fmt::format("a{}: &a{} [", level, level);
        for (int i = 0; i < width; ++i) text += fmt::format("{}*a{}", i == 0 ? "" : ", ", level - 1);
        text += "]\n";
    }
    return text;
}

std::string nested_lists(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

} // namespace

BOOST_AUTO_TEST_CASE(an_alias_inside_its_own_anchor_is_refused_where_it_stands) {
    // 40 bytes that sent the duplicate-key walk into endless recursion.
    const auto message = refusal("neuron_emu_model: 1\nname: x\ninputs: &x [*x]");
    BOOST_TEST(message.starts_with("f:3:13: alias *x is inside the node it names (&x at line 3)"), message);
    BOOST_TEST(refusal("a: &m {b: {c: *m}}").starts_with("f:1:15: alias *m is inside"));
}

BOOST_AUTO_TEST_CASE(an_alias_bomb_is_refused_at_once) {
    // The billion laughs: about 600 bytes that expand to 10^9 nodes.
    const auto bomb = alias_bomb(9, 10);
    BOOST_TEST(bomb.size() < 700u);
    const auto started = std::chrono::steady_clock::now();
    const auto message = refusal(bomb);
    BOOST_TEST(
        contains(message, "the document has more than 100000 nodes, counting each alias as the nodes it repeats"),
        message);
    BOOST_TEST(message.starts_with("f:5:"), message); // a4 holds 111111 nodes
    // Loading builds shared nodes only: the refusal comes before any walk.
    BOOST_TEST(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() < 1.0);
}

BOOST_AUTO_TEST_CASE(aliases_within_the_budget_load) {
    const auto root = yaml_fields("f").load(alias_bomb(4, 10)); // 1111 nodes in the last list alone
    BOOST_TEST(root["a3"].size() == 10u);
    BOOST_TEST(root["a3"][9][9][9][9].Scalar() == "x");
    BOOST_TEST(refusal("base: &b {x: 1, y: [1, 2]}\none: *b\ntwo: *b\n").empty());
}

BOOST_AUTO_TEST_CASE(nesting_is_bounded_aliases_included) {
    BOOST_TEST(refusal(nested_lists(yaml_fields::max_depth)).empty());
    BOOST_TEST(
        refusal(nested_lists(yaml_fields::max_depth + 1))
            .starts_with(fmt::format("f:1:{}: the document nests deeper than 64 levels", yaml_fields::max_depth + 1)));
    // Each alias here is one list deeper than the last: 70 short lines nest 70 deep.
    std::string chain = "a0: &a0 [x]\n";
    for (int i = 1; i < 70; ++i) chain += fmt::format("a{}: &a{} [*a{}]\n", i, i, i - 1);
    const auto message = refusal(chain);
    BOOST_TEST(contains(message, "nests deeper than 64 levels, counting each alias"), message);
    BOOST_TEST(message.starts_with("f:63:"), message);
}

BOOST_AUTO_TEST_CASE(a_very_deep_document_is_refused_without_a_crash) {
    // yaml-cpp's parser recurses once per level; the event stream is refused
    // at level 65, long before its stack runs out.
    for (const auto& text : {nested_lists(100'000), std::string(100'000, '['), std::string(100'000, '{')}) {
        BOOST_TEST(contains(refusal(text), "nests deeper than 64 levels"));
    }
    std::string block;
    for (int i = 0; i < 100'000; ++i) block += "- ";
    BOOST_TEST(contains(refusal(block + "x"), "nests deeper than 64 levels"));
}

BOOST_AUTO_TEST_CASE(a_second_document_is_refused_at_its_start) {
    const auto message = refusal("a: 1\n---\nb: 2\n");
    BOOST_TEST(message.starts_with("f:2:1: a second document is not allowed"), message);
    BOOST_TEST(refusal("---\na: 1\n...\n").empty());
    BOOST_TEST(!refusal("a: 1\n---\n").empty());
}

BOOST_AUTO_TEST_CASE(a_duplicate_key_names_its_first_line) {
    BOOST_TEST(refusal("a: 1\nb: 2\na: 3\n").starts_with("f:3:1: key 'a' is given twice (first at line 1)"));
    BOOST_TEST(refusal("m:\n  a: 1\nn:\n  a: 2\n").empty()); // keys of other maps
}

BOOST_AUTO_TEST_CASE(a_map_of_too_many_keys_is_refused_before_it_is_loaded) {
    // yaml-cpp loads a map of n keys in n^2 / 2 steps, and the duplicate
    // check compared every pair of keys too: 20 000 keys took seconds.
    std::string text;
    for (int i = 0; i < 20'000; ++i) text += fmt::format("key{}: 1\n", i);
    const auto message = refusal(text);
    BOOST_TEST(message == "f:4097:1: a map has more than 4096 keys", message);
    // Values that are maps count once, as values.
    std::string nested = "top:\n";
    for (int i = 0; i < 4096; ++i) nested += fmt::format("  k{}: {{a: 1}}\n", i);
    BOOST_TEST(refusal(nested).empty());
    BOOST_TEST(refusal(nested + "  k4096: {a: 1}\n").starts_with("f:4098:3: a map has more than 4096 keys"));
}

BOOST_AUTO_TEST_CASE(a_duplicate_among_the_most_keys_a_map_may_have_is_found) {
    std::string text;
    for (int i = 0; i < 4095; ++i) text += fmt::format("key{}: 1\n", i);
    BOOST_TEST(refusal(text).empty());
    BOOST_TEST(refusal(text + "key17: 2\n").starts_with("f:4096:1: key 'key17' is given twice (first at line 18)"));
}

BOOST_AUTO_TEST_CASE(input_quoted_in_a_message_is_escaped) {
    const auto unknown = [](const std::string& text) {
        try {
            yaml_fields f("f");
            f.only_keys(f.load(text), {"name"}, "the file");
            return std::string();
        } catch (const yaml_error& e) {
            return std::string(e.what());
        }
    };
    const auto message = unknown("\"\\e[2Jx\\ny\": 1\n");
    BOOST_TEST(message == "f:1:1: unknown key '\\x1b[2Jx\\ny' in the file (valid: name)", message);
    BOOST_TEST(refusal("a: 1\na: 2\n", "dir\nfile\x1b").starts_with("dir\\nfile\\x1b:2:1: key 'a'"));
    // A long value is cut.
    try {
        yaml_fields f("f");
        (void)f.unsigned_number(f.load(std::string(5000, 'z')), "n");
        BOOST_ERROR("accepted");
    } catch (const yaml_error& e) {
        BOOST_TEST(std::string(e.what()).size() < 300u, e.what());
        BOOST_TEST(contains(e.what(), "...(5000 bytes)"));
    }
}
