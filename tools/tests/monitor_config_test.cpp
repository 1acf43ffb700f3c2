#define BOOST_TEST_MODULE monitor_config
#include "neuron/tools/monitor_config.h"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace neuron::tools;

namespace {

constexpr std::uint64_t ms = 1'000'000;
constexpr std::uint64_t s = 1'000 * ms;

// The vendor guide's example: every group, 1 s, the hardware counters every 2 s.
const std::string guide_example = R"({
  "period": "1s",
  "neuron_runtimes": [
    {
      "tag_filter": ".*",
      "metrics": [
        {"type": "neuroncore_counters"},
        {"type": "memory_used"},
        {"type": "neuron_runtime_vcpu_usage"},
        {"type": "execution_stats"}
      ]
    }
  ],
  "system_metrics": [
    {"type": "vcpu_usage"},
    {"type": "memory_info"},
    {"period": "2s", "type": "neuron_hw_counters"}
  ]
})";

// The message of the refusal of `text`; empty when it is accepted.
std::string refusal(const std::string& text) {
    try {
        parse_monitor_config(text, "monitor.json");
    } catch (const monitor_config_error& e) {
        return e.what();
    }
    return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

BOOST_AUTO_TEST_CASE(without_a_file_every_group_is_reported_every_5_s_for_every_runtime) {
    const auto c = default_monitor_config();
    BOOST_TEST(c.period_ns == 5 * s);
    BOOST_TEST_REQUIRE(c.neuron_runtimes.size() == 1U);
    const auto& r = c.neuron_runtimes[0];
    BOOST_TEST(r.matches("any_tag"));
    BOOST_TEST(r.matches(""));
    BOOST_TEST_REQUIRE(r.metrics.size() == runtime_metric_count);
    for (std::size_t i = 0; i < runtime_metric_count; ++i) {
        BOOST_TEST(metric_name(r.metrics[i].type) == metric_name(static_cast<runtime_metric>(i)));
        BOOST_TEST(r.metrics[i].period_ns == 5 * s);
    }
    BOOST_TEST_REQUIRE(c.system_metrics.size() == system_metric_count);
    for (std::size_t i = 0; i < system_metric_count; ++i) {
        BOOST_TEST(metric_name(c.system_metrics[i].type) == metric_name(static_cast<system_metric>(i)));
        BOOST_TEST(c.system_metrics[i].period_ns == 5 * s);
    }
}

BOOST_AUTO_TEST_CASE(the_guides_example_reads_as_written) {
    const auto c = parse_monitor_config(guide_example, "monitor.json");
    BOOST_TEST(c.period_ns == 1 * s);
    BOOST_TEST_REQUIRE(c.neuron_runtimes.size() == 1U);
    const auto& r = c.neuron_runtimes[0];
    BOOST_TEST(r.tag_filter == ".*");
    BOOST_TEST(r.matches("my_app_1"));
    BOOST_TEST_REQUIRE(r.metrics.size() == 4U);
    BOOST_TEST(metric_name(r.metrics[0].type) == "neuroncore_counters");
    BOOST_TEST(metric_name(r.metrics[1].type) == "memory_used");
    BOOST_TEST(metric_name(r.metrics[2].type) == "neuron_runtime_vcpu_usage");
    BOOST_TEST(metric_name(r.metrics[3].type) == "execution_stats");
    for (const auto& m : r.metrics) BOOST_TEST(m.period_ns == 1 * s);
    BOOST_TEST_REQUIRE(c.system_metrics.size() == 3U);
    BOOST_TEST(metric_name(c.system_metrics[0].type) == "vcpu_usage");
    BOOST_TEST(c.system_metrics[0].period_ns == 1 * s);
    BOOST_TEST(metric_name(c.system_metrics[1].type) == "memory_info");
    BOOST_TEST(metric_name(c.system_metrics[2].type) == "neuron_hw_counters");
    BOOST_TEST(c.system_metrics[2].period_ns == 2 * s);
}

BOOST_AUTO_TEST_CASE(a_period_applies_to_everything_below_it_unless_a_group_sets_its_own) {
    const auto c = parse_monitor_config(R"({"period": "3s",
        "neuron_runtimes": [{"period": "2s", "metrics": [{"type": "memory_used"}, {"type": "execution_stats", "period": "500ms"}]},
                            {"metrics": [{"type": "neuroncore_counters"}]}],
        "system_metrics": [{"type": "memory_info"}]})",
                                        "c");
    BOOST_TEST(c.period_ns == 3 * s);
    BOOST_TEST(c.neuron_runtimes[0].metrics[0].period_ns == 2 * s);
    BOOST_TEST(c.neuron_runtimes[0].metrics[1].period_ns == 500 * ms);
    BOOST_TEST(c.neuron_runtimes[1].metrics[0].period_ns == 3 * s);
    BOOST_TEST(c.system_metrics[0].period_ns == 3 * s);
    // Without a root period: the default 5 s.
    const auto d = parse_monitor_config(R"({"system_metrics": [{"type": "vcpu_usage"}]})", "c");
    BOOST_TEST(d.system_metrics[0].period_ns == 5 * s);
}

BOOST_AUTO_TEST_CASE(an_empty_object_reports_no_group) {
    const auto c = parse_monitor_config("{}", "c");
    BOOST_TEST(c.neuron_runtimes.empty());
    BOOST_TEST(c.system_metrics.empty());
}

BOOST_AUTO_TEST_CASE(a_tag_filter_is_found_anywhere_in_the_tag_and_its_absence_takes_every_runtime) {
    const auto c = parse_monitor_config(R"({"neuron_runtimes": [{"tag_filter": "^train", "metrics": []},
                                                                 {"tag_filter": "app", "metrics": []},
                                                                 {"metrics": []}]})",
                                        "c");
    BOOST_TEST(c.neuron_runtimes[0].matches("training_1"));
    BOOST_TEST(!c.neuron_runtimes[0].matches("my_training"));
    BOOST_TEST(c.neuron_runtimes[1].matches("my_app_1"));
    BOOST_TEST(!c.neuron_runtimes[1].matches("serving"));
    BOOST_TEST(c.neuron_runtimes[2].tag_filter.empty());
    BOOST_TEST(c.neuron_runtimes[2].matches("anything"));
}

BOOST_AUTO_TEST_CASE(durations_read_as_gos_time_parse_duration_reads_them) {
    const auto ns = [](const char* text) {
        const auto d = parse_duration(text);
        BOOST_TEST(d.error.empty(), text << ": " << d.error);
        return d.ns;
    };
    BOOST_TEST(ns("1s") == 1'000'000'000);
    BOOST_TEST(ns("500ms") == 500'000'000);
    BOOST_TEST(ns("1m30s") == 90'000'000'000);
    BOOST_TEST(ns("1.5h") == 5'400'000'000'000);
    BOOST_TEST(ns("2us") == 2'000);
    BOOST_TEST(ns("2\xC2\xB5s") == 2'000);
    BOOST_TEST(ns("7ns") == 7);
    BOOST_TEST(ns(".5s") == 500'000'000);
    BOOST_TEST(ns("1.s") == 1'000'000'000);
    BOOST_TEST(ns("0") == 0);
    BOOST_TEST(ns("+2s") == 2'000'000'000);
    BOOST_TEST(ns("-2s") == -2'000'000'000);

    BOOST_TEST(contains(parse_duration("").error, "is not a duration"));
    BOOST_TEST(contains(parse_duration("s").error, "is not a duration"));
    BOOST_TEST(contains(parse_duration(".s").error, "is not a duration"));
    BOOST_TEST(contains(parse_duration("5").error, "without a unit"));
    BOOST_TEST(contains(parse_duration("1d").error, "unknown unit 'd'"));
    BOOST_TEST(contains(parse_duration("1 s").error, "unknown unit ' s'"));
    BOOST_TEST(contains(parse_duration("9999999999999999999h").error, "out of range"));
    BOOST_TEST(contains(parse_duration("3000000h").error, "out of range"));
}

BOOST_AUTO_TEST_CASE(text_that_is_not_json_is_refused_with_its_position) {
    const auto broken = refusal("{\n  \"period\": \"1s\",\n  \"system_metrics\": [\n}");
    BOOST_TEST(broken.rfind("monitor.json:4:", 0) == 0U, broken);
    BOOST_TEST(contains(broken, "(the configuration must be JSON)"), broken);
    BOOST_TEST(contains(refusal("period: 1s\n"), "monitor.json:1:1: the configuration must be a JSON object"));
    BOOST_TEST(contains(refusal("[]"), "must be a JSON object"));
    BOOST_TEST(contains(refusal(""), "monitor.json:1:1: the configuration must be a JSON object"));
    BOOST_TEST(contains(refusal(R"({"period": "1s", "period": "2s"})"), "key 'period' is given twice"));
}

BOOST_AUTO_TEST_CASE(metric_types_are_checked_and_a_typo_gets_a_suggestion) {
    const auto typo = refusal(R"({"neuron_runtimes": [{"metrics": [{"type": "neuroncore_counter"}]}]})");
    BOOST_TEST(typo == "monitor.json:1:44: unknown runtime metric type \"neuroncore_counter\"; did you mean "
                       "\"neuroncore_counters\"?");
    BOOST_TEST(contains(refusal(R"({"system_metrics": [{"type": "vcpu"}]})"),
                        "unknown system metric type \"vcpu\" (valid: neuron_hw_counters, vcpu_usage, memory_info)"));
    BOOST_TEST(contains(refusal(R"({"neuron_runtimes": [{"metrics": [{"type": "inference_stats"}]}]})"),
                        "\"inference_stats\" was renamed \"execution_stats\""));
    BOOST_TEST(contains(refusal(R"({"neuron_runtimes": [{"metrics": [{"type": "memory_info"}]}]})"),
                        "\"memory_info\" is a system metric group: list it in \"system_metrics\""));
    BOOST_TEST(contains(refusal(R"({"system_metrics": [{"type": "memory_used"}]})"),
                        "\"memory_used\" is a runtime metric group"));
    BOOST_TEST(contains(refusal(R"({"system_metrics": [{"type": "memory_info"}, {"type": "memory_info"}]})"),
                        "\"memory_info\" is listed twice in \"system_metrics\""));
    BOOST_TEST(
        contains(refusal(R"({"neuron_runtimes": [{"metrics": [{"type": "memory_used"}, {"type": "memory_used"}]}]})"),
                 "\"memory_used\" is listed twice in \"neuron_runtimes\"[0].metrics"));
    BOOST_TEST(
        contains(refusal(R"({"system_metrics": [{"period": "1s"}]})"), "\"system_metrics\"[0] needs a \"type\""));
    BOOST_TEST(contains(refusal(R"({"system_metrics": [{"type": 5}]})"), "\"type\" must be a JSON string"));
}

BOOST_AUTO_TEST_CASE(bad_periods_are_refused_with_what_is_wrong) {
    const auto period = [](const std::string& p) { return refusal(R"({"period": )" + p + "}"); };
    BOOST_TEST(period("\"1d\"") ==
               "monitor.json:1:12: \"period\": unknown unit 'd' in '1d' (units: ns, us, ms, s, m, h)");
    BOOST_TEST(contains(period("\"fast\""), "'fast' is not a duration"));
    BOOST_TEST(contains(period("\"0s\""), "\"period\" must be more than 0, not '0s'"));
    BOOST_TEST(contains(period("\"0\""), "\"period\" must be more than 0"));
    BOOST_TEST(contains(period("\"-1s\""), "\"period\" must be more than 0, not '-1s'"));
    BOOST_TEST(contains(period("\"100us\""), "\"period\" '100us' is shorter than 1ms"));
    BOOST_TEST(contains(period("\"25h\""), "\"period\" '25h' is longer than 24h"));
    BOOST_TEST(contains(period("5"), "\"period\" must be a JSON string (in double quotes), not 5"));
    BOOST_TEST(contains(period("null"), "\"period\" must be a JSON string (in double quotes), not null"));
    BOOST_TEST(contains(period("[\"1s\"]"), "not a list"));
    BOOST_TEST(period("\"1ms\"").empty());
    BOOST_TEST(period("\"24h\"").empty());
    // A metric group's own period is checked as well.
    BOOST_TEST(
        contains(refusal(R"({"system_metrics": [{"type": "vcpu_usage", "period": "2x"}]})"), "unknown unit 'x'"));
}

BOOST_AUTO_TEST_CASE(bad_tag_filters_are_refused) {
    const auto filter = [](const std::string& f) {
        return refusal(R"({"neuron_runtimes": [{"tag_filter": )" + f + R"(, "metrics": []}]})");
    };
    BOOST_TEST(contains(filter("\"(app\""), "\"tag_filter\" '(app' is not a valid regular expression"));
    BOOST_TEST(contains(filter("\"[a-\""), "is not a valid regular expression"));
    BOOST_TEST(contains(filter("\"" + std::string(1025, 'a') + "\""), "\"tag_filter\" is 1025 characters long"));
    BOOST_TEST(filter("\"" + std::string(1024, 'a') + "\"").empty());
    BOOST_TEST(contains(filter("7"), "\"tag_filter\" must be a JSON string"));
#ifdef __GLIBCXX__
    // Back-references need a backtracking matcher, which a filter could make run for ever.
    BOOST_TEST(contains(filter(R"("(a)\\1")"), "is not a valid regular expression"));
#endif
}

BOOST_AUTO_TEST_CASE(wrong_shapes_and_unknown_keys_are_refused) {
    BOOST_TEST(refusal(R"({"perod": "1s"})") ==
               "monitor.json:1:2: unknown key 'perod' in the configuration; did you mean 'period'?");
    BOOST_TEST(contains(refusal(R"({"neuron_runtimes": {}})"), "\"neuron_runtimes\" must be a list, not a map"));
    BOOST_TEST(contains(refusal(R"({"system_metrics": "vcpu_usage"})"), "\"system_metrics\" must be a list"));
    BOOST_TEST(contains(refusal(R"({"neuron_runtimes": ["x"]})"), "\"neuron_runtimes\"[0] must be a map"));
    BOOST_TEST(
        contains(refusal(R"({"neuron_runtimes": [{"tag_filter": "x"}]})"), "\"neuron_runtimes\"[0] needs \"metrics\""));
    BOOST_TEST(contains(refusal(R"({"neuron_runtimes": [{"metrics": [{"type": "memory_used", "peroid": "1s"}]}]})"),
                        "unknown key 'peroid' in \"neuron_runtimes\"[0].metrics[0]; did you mean 'period'?"));
    BOOST_TEST(contains(refusal(R"({"neuron_runtimes": [{"tag": "x", "metrics": []}]})"), "unknown key 'tag'"));
}

BOOST_AUTO_TEST_CASE(every_prefix_and_corruption_of_a_config_is_read_or_refused_never_crashes) {
    for (std::size_t n = 0; n <= guide_example.size(); ++n) {
        auto text = guide_example.substr(0, n);
        try {
            parse_monitor_config(text, "c");
        } catch (const monitor_config_error&) {}
        for (const char c : {'"', '{', ']', '\\', '\0', '\xff'}) {
            text = guide_example;
            if (n < text.size()) text[n] = c;
            try {
                parse_monitor_config(text, "c");
            } catch (const monitor_config_error&) {}
        }
    }
    // Deep nesting is refused by the bounded loader, not by the stack.
    BOOST_TEST(contains(refusal(std::string(100'000, '[')), "monitor.json"));
}
