#define BOOST_TEST_MODULE report
#include "neuron/conformance/report.h"
#include "neuron/conformance/scenario_parser.h"

#include <boost/test/unit_test.hpp>

#include <cstdio>

using namespace neuron::conformance;
using namespace std::chrono_literals;

namespace {

scenario named(const std::string& file, const std::string& name) {
    return parse_scenario("name: " + name + "\nsteps: [{read: a}]\n", file, ".");
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string printed(const report_entry& e) {
    char* buffer = nullptr;
    std::size_t size = 0;
    std::FILE* out = ::open_memstream(&buffer, &size);
    print_entry(out, e);
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
}

} // namespace

BOOST_AUTO_TEST_CASE(junit_has_a_suite_per_folder_and_a_case_per_scenario) {
    const auto a = named("scenarios/reset/a.yaml", "reset/a");
    const auto b = named("scenarios/reset/b.yaml", "reset/b");
    const auto c = named("scenarios/ecc/c.yaml", "ecc/c");
    std::vector<report_entry> entries{
        {&a, {verdict::pass, "", "", "", "", 1500ms}, "run a", ""},
        {&b,
         {verdict::fail, "expected \"1\\n\", got <0>", "scenarios/reset/b.yaml:4:5", "read neuron0/reset", "", 2s},
         "run b",
         ""},
        {&c, {verdict::skip, "needs inject_ecc: the target cannot inject ECC errors", "", "", "", 0s}, "run c", ""},
    };
    const auto xml = junit_xml(entries, "model trn1.2xlarge", 4s);
    BOOST_TEST(contains(
        xml, R"(<testsuites name="neuron-conformance" tests="3" failures="1" skipped="1" errors="0" time="4.000">)"));
    BOOST_TEST(contains(xml, R"(<testsuite name="reset" tests="2" failures="1" skipped="0" errors="0" time="3.500">)"));
    BOOST_TEST(contains(xml, R"(<testsuite name="ecc" tests="1" failures="0" skipped="1")"));
    BOOST_TEST(
        contains(xml, R"(<testcase classname="reset" name="reset/a" file="scenarios/reset/a.yaml" time="1.500"/>)"));
    BOOST_TEST(contains(xml, R"(<failure message="expected &quot;1\n&quot;, got &lt;0&gt;" type="step">)"));
    BOOST_TEST(contains(xml, "repro: run b</failure>"));
    BOOST_TEST(contains(xml, R"(<skipped message="needs inject_ecc: the target cannot inject ECC errors"/>)"));
}

BOOST_AUTO_TEST_CASE(xml_escaping_covers_markup_and_control_characters) {
    BOOST_TEST(xml_escape("<a & 'b'>\n\x01") == "&lt;a &amp; &apos;b&apos;&gt;&#10;?");
}

BOOST_AUTO_TEST_CASE(a_failure_prints_its_step_reason_details_and_repro) {
    const auto s = named("scenarios/reset/b.yaml", "reset/b");
    const auto text = printed({&s,
                               {verdict::fail, "expected 1, got 0", "x.yaml:4:5", "read neuron0/reset",
                                "  emulator.stderr (last lines):\n    boom\n", 2s},
                               "neuron-conformance x.yaml",
                               ""});
    BOOST_TEST(text.starts_with("FAIL  reset/b"));
    BOOST_TEST(contains(text, "      step read neuron0/reset at x.yaml:4:5\n"));
    BOOST_TEST(contains(text, "      expected 1, got 0\n"));
    BOOST_TEST(contains(text, "boom"));
    BOOST_TEST(contains(text, "      repro: neuron-conformance x.yaml\n"));
}

BOOST_AUTO_TEST_CASE(a_skip_prints_its_reason_on_its_line) {
    const auto s = named("a.yaml", "x");
    const auto text = printed({&s, {verdict::skip, "needs runtime: the target cannot run", "", "", "", 0s}, "r", ""});
    BOOST_TEST(text.starts_with("SKIP  x "));
    BOOST_TEST(contains(text, "needs runtime: the target cannot run\n"));
}

BOOST_AUTO_TEST_CASE(text_from_the_tree_and_the_processes_is_escaped_in_the_report) {
    const auto s = named("scenarios/reset/b.yaml", "reset/b");
    const report_entry e{&s,
                         {verdict::fail, "expected \"1\", got \x1b]0;owned\x07\xff", "b.yaml:4:5", "read x\x1b",
                          "  emulator.stderr (last lines):\n    \x1b[2Jboom\x01\n", 2s},
                         "neuron-conformance x\x1b.yaml",
                         ""};
    const auto text = printed(e);
    BOOST_TEST(text.find('\x1b') == std::string::npos, text);
    BOOST_TEST(contains(text, "      step read x\\x1b at b.yaml:4:5\n"), text);
    BOOST_TEST(contains(text, "      expected \"1\", got \\x1b]0;owned\\x07\\xff\n"), text);
    BOOST_TEST(contains(text, "      what the processes said:\n        emulator.stderr (last lines):\n"
                              "          \\x1b[2Jboom\\x01\n"),
               text);
    BOOST_TEST(contains(text, "      repro: neuron-conformance x\\x1b.yaml\n"), text);
    // The JUnit file stays well-formed UTF-8 XML: no raw control characters or invalid bytes.
    const auto xml = junit_xml({e}, "model trn1.2xlarge", 2s);
    BOOST_TEST(xml.find('\x1b') == std::string::npos);
    BOOST_TEST(xml.find('\xff') == std::string::npos);
    BOOST_TEST(contains(xml, R"(<failure message="expected &quot;1&quot;, got \x1b]0;owned\x07\xff" type="step">)"),
               xml);
    const report_entry skipped{&s, {verdict::skip, "no\ntarget\x1b", "", "", "", 0s}, "r", ""};
    BOOST_TEST(contains(printed(skipped), "no\\ntarget\\x1b\n"));
}

BOOST_AUTO_TEST_CASE(a_run_on_one_of_several_targets_names_it) {
    const auto s = named("scenarios/reset/a.yaml", "reset/a");
    const report_entry e{&s, {verdict::pass, "", "", "", "", 1s}, "r", "inf1.xlarge 2.24.7.0"};
    BOOST_TEST(e.label() == "reset/a [inf1.xlarge 2.24.7.0]");
    BOOST_TEST(contains(printed(e), "PASS  reset/a [inf1.xlarge 2.24.7.0]"));
    BOOST_TEST(contains(junit_xml({e}, "the model", 1s), R"(name="reset/a [inf1.xlarge 2.24.7.0]")"));
}
