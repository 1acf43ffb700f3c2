#define BOOST_TEST_MODULE scenario_parser
#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/scenario_parser.h"

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <filesystem>
#include <fstream>

using namespace neuron::conformance;
using neuron::common::yaml_error;

namespace {

const std::string directory = std::filesystem::temp_directory_path().string();

scenario parse(const std::string& text) { return parse_scenario(text, "s.yaml", directory); }

// The text is refused at s.yaml:LINE:COLUMN with a message containing `what`.
void refused(const std::string& text, int line, int column, const std::string& what) {
    try {
        (void)parse(text);
        BOOST_ERROR("accepted:\n" << text);
    } catch (const yaml_error& e) {
        const std::string message = e.what();
        const auto where = "s.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
        BOOST_TEST(message.starts_with(where), "expected at " << where << " got: " << message);
        BOOST_TEST(message.find(what) != std::string::npos, "expected '" << what << "' in: " << message);
    }
}

const std::string head = "name: t\nsteps:\n";

} // namespace

BOOST_AUTO_TEST_CASE(a_whole_scenario_parses) {
    const auto s = parse(R"(name: counters/x
description: what it checks
tags: [counters, write]
requires: [root, inject_ecc, time_control]
applies_to:
  instances: [trn1.32xlarge, "trn2*"]
  devices: [Trainium1]
  arch: [v2]
  driver: [">= 2.17", "< 2.25"]
setup: {instance: trn1.32xlarge, driver_version: "2.24", time: stepped, rtf: 2, seed: 9, notify: on}
timeout: 30s
models:
  m:
    neuron_emu_model: 1
    name: m
steps:
  - read: neuron0/core_count
    expect: {equals: "2"}
  - for_each: {device: devices, field: [total, present]}
    do:
      - write: neuron{device}/stats/memory_usage/host_mem/tensors/{field}
        value: "0"
  - inject_ecc: {device: 0, kind: hbm, count: 2, channel: 1}
  - advance: 1s
)");
    BOOST_TEST(s.name == "counters/x");
    BOOST_TEST(s.tags.size() == 2u);
    BOOST_TEST(s.requires_.contains(capability::inject_ecc));
    BOOST_TEST(s.applies_to.instances.size() == 2u);
    BOOST_TEST(s.applies_to.arch == std::vector<int>({2}), boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(s.applies_to.driver.size() == 2u);
    BOOST_TEST(s.applies_to.driver[1].str() == "< 2.25");
    BOOST_TEST(*s.setup.instance == "trn1.32xlarge");
    BOOST_TEST(s.setup.rtf == 2.0);
    BOOST_TEST(*s.setup.notify);
    BOOST_TEST(s.timeout->count() == 30'000'000'000);
    BOOST_TEST(s.models.contains("m"));
    BOOST_TEST_REQUIRE(s.steps.size() == 4u);
    BOOST_TEST(s.steps[0].where.str() == "s.yaml:17:5");
    const auto& loop = std::get<for_each_step>(s.steps[1].what);
    BOOST_TEST(loop.loops.size() == 2u);
    BOOST_TEST(loop.loops[0].keyword == "devices");
    BOOST_TEST(loop.loops[1].values.size() == 2u);
    BOOST_TEST(loop.body->size() == 1u);
    const auto& ecc = std::get<inject_ecc_step>(s.steps[2].what);
    BOOST_TEST(ecc.count.raw() == "2");
    BOOST_TEST(ecc.channel->raw() == "1");
    BOOST_TEST(s.group() == "scenarios"); // a file without a folder
}

BOOST_AUTO_TEST_CASE(an_unknown_key_suggests_the_closest) {
    refused("name: t\ndescripton: x\nsteps: [{read: a}]\n", 2, 1, "did you mean 'description'?");
    refused(head + "  - read: a\n    expct: {number: 1}\n", 4, 5, "did you mean 'expect'?");
    refused(head + "  - read: a\n    expect: {nuber: 1}\n", 4, 14, "did you mean 'number'?");
}

BOOST_AUTO_TEST_CASE(an_unknown_action_suggests_the_closest) {
    refused(head + "  - raed: a\n", 3, 5, "unknown action 'raed'; did you mean 'read'?");
}

BOOST_AUTO_TEST_CASE(a_step_does_one_thing) {
    refused(head + "  - read: a\n    write: b\n", 4, 5, "'read' and 'write' are both actions");
}

BOOST_AUTO_TEST_CASE(rtf_is_bounded_as_serve_bounds_it) {
    refused("name: t\nsetup: {rtf: 100}\nsteps: [{read: a}]\n", 2, 14, "rtf must be between 0.001 and 10");
    refused("name: t\nsetup: {rtf: 0}\nsteps: [{read: a}]\n", 2, 14, "rtf must be between 0.001 and 10");
}

BOOST_AUTO_TEST_CASE(a_key_given_twice_is_refused) {
    refused("name: t\nname: u\nsteps: [{read: a}]\n", 2, 1, "key 'name' is given twice");
}

BOOST_AUTO_TEST_CASE(placeholders_must_be_bound_by_an_enclosing_for_each) {
    refused(head + "  - read: neuron{device}/core_count\n", 3, 11, "{device} is not bound here");
    refused(head + "  - for_each: {device: devices}\n    do:\n      - read: neuron{devise}/x\n", 5, 15,
            "did you mean {device}?");
    // Bound only inside the loop.
    refused(head + "  - for_each: {d: devices}\n    do: [{read: a}]\n  - read: neuron{d}/x\n", 5, 11,
            "{d} is not bound");
    refused(head + "  - for_each: {d: devices}\n    do:\n      - for_each: {d: cores}\n        do: [{read: a}]\n", 5,
            20, "'d' is already bound");
}

BOOST_AUTO_TEST_CASE(an_unknown_set_names_the_sets) {
    refused(head + "  - for_each: {c: core}\n    do: [{read: a}]\n", 3, 19, "did you mean 'cores'?");
}

BOOST_AUTO_TEST_CASE(requires_must_list_what_the_steps_need) {
    refused(head + "  - inject_ecc: {device: 0, kind: hbm}\n", 3, 5, "this needs 'inject_ecc'");
    refused(head + "  - read: a\n    as_user: nobody\n", 4, 14, "this needs 'root'");
    refused("name: t\nsetup: {notify: on}\nsteps: [{read: a}]\n", 2, 17, "this needs 'root'");
    refused("name: t\nrequires: [inject]\nsteps: [{read: a}]\n", 2, 12, "unknown capability 'inject'");
}

BOOST_AUTO_TEST_CASE(advance_needs_stepped_time) {
    refused("name: t\nrequires: [time_control]\nsetup: {time: realtime}\nsteps:\n  - advance: 1s\n", 5, 14,
            "advance needs stepped time");
    refused("name: t\nrequires: [time_control]\nsteps:\n  - advance: soon\n", 4, 14, "advance takes a duration");
}

BOOST_AUTO_TEST_CASE(waiting_for_an_execution_needs_time_to_pass) {
    const auto model = directory + "/neuron-conformance-parser-test-model.yaml";
    std::ofstream(model) << "neuron_emu_model: 1\nname: m\n";
    refused("name: t\nrequires: [runtime]\nsteps:\n  - run_model: neuron-conformance-parser-test-model.yaml\n", 4, 16,
            "in stepped time an execution ends only when time is advanced");
    BOOST_TEST(parse("name: t\nrequires: [runtime]\nsetup: {time: realtime}\nsteps:\n  - run_model: "
                     "neuron-conformance-parser-test-model.yaml\n")
                   .steps.size() == 1u);
    std::filesystem::remove(model);
}

BOOST_AUTO_TEST_CASE(a_model_is_inline_or_a_file_beside_the_scenario) {
    refused("name: t\nrequires: [runtime]\nsetup: {time: realtime}\nsteps:\n  - run_model: nowhere.yaml\n", 5, 16,
            "neither one of this scenario's models nor a file beside it");
    refused("name: t\nmodels:\n  m: {neuron_emu_model: 1, name: m, work: {tensr: 1}}\nsteps: [{read: a}]\n", 3, 6,
            "model 'm' is not a valid model file");
}

BOOST_AUTO_TEST_CASE(values_are_checked_where_they_stand) {
    refused(head + "  - write: a\n    value: x\n    expect: ENOPE\n", 5, 13, "unknown errno name 'ENOPE'");
    refused(head + "  - read: a\n    expect: {matches: \"[a-\"}\n", 4, 23, "not a valid regular expression");
    refused(head + "  - read: a\n    expect: {number: -1}\n", 4, 22, "whole number");
    refused(head + "  - read: a\n    expect: {error: EACCES, number: 1}\n", 4, 21, "error stands alone");
    refused(head + "  - read: a\n    within: 1s\n", 4, 13, "give expect");
    refused(head + "  - stat: a\n    expect: {mode: \"644x\"}\n", 4, 20, "octal permission bits");
    refused(head + "  - poll: a\n    expect: woken\n", 4, 13, "wake or no_wake");
    refused("name: t\napplies_to: {driver: \"about 2.17\"}\nsteps: [{read: a}]\n", 2, 22, "a driver bound");
    refused("name: t\napplies_to: {instances: [trn9.xlarge]}\nsteps: [{read: a}]\n", 2, 26, "unknown instance type");
    refused("name: t\nsetup: {time: fast}\nsteps: [{read: a}]\n", 2, 15, "stepped or realtime");
    refused("name: t\ntimeout: 0s\nsteps: [{read: a}]\n", 2, 10, "timeout takes a duration");
    refused("name: two words\nsteps: [{read: a}]\n", 1, 7, "one word");
    refused("name: t\nsteps: []\n", 2, 8, "at least one step");
    refused("steps: [{read: a}]\n", 1, 1, "needs 'name'");
}

BOOST_AUTO_TEST_CASE(an_empty_value_is_reported_at_its_key) {
    refused(head + "  - read:\n", 3, 5, "a path must be text, not nothing");
}

BOOST_AUTO_TEST_CASE(yaml_syntax_errors_carry_a_position) { refused("name: t\nsteps: [\n", 3, 1, ""); }

BOOST_AUTO_TEST_CASE(a_missing_file_is_an_error_naming_it) {
    try {
        (void)parse_scenario_file("/nonexistent/x.yaml");
        BOOST_ERROR("accepted");
    } catch (const yaml_error& e) {
        BOOST_TEST(std::string(e.what()) == "/nonexistent/x.yaml:1:1: cannot read the file");
    }
}

BOOST_AUTO_TEST_CASE(statuses_are_nrt_names_or_any) {
    const auto s =
        parse("name: t\nrequires: [runtime]\nsetup: {time: realtime}\nmodels:\n  m: {neuron_emu_model: 1, name: m}\n"
              "steps:\n  - run_model: m\n    executions: 3\n    expect: [NRT_SUCCESS, any]\n");
    BOOST_TEST(std::get<run_model_step>(s.steps[0].what).expect == std::vector<std::string>({"NRT_SUCCESS", "any"}),
               boost::test_tools::per_element());
    refused("name: t\nrequires: [runtime]\nsetup: {time: realtime}\nmodels:\n  m: {neuron_emu_model: 1, name: m}\n"
            "steps:\n  - run_model: m\n    expect: SUCCESS\n",
            8, 13, "'SUCCESS' is not an NRT_STATUS name");
}

BOOST_AUTO_TEST_CASE(a_step_without_an_action_is_refused) {
    refused(head + "  - {}\n", 3, 5, "a step needs an action");
}

BOOST_AUTO_TEST_CASE(a_setup_release_is_kept_for_the_run_to_judge) {
    // An unknown one fails that scenario when it runs, not the library's loading.
    const auto s = parse("name: t\nsetup: {driver_version: \"2.99\"}\nsteps: [{read: a}]\n");
    BOOST_TEST(*s.setup.driver_version == "2.99");
}

BOOST_AUTO_TEST_CASE(process_names_are_plain_words) {
    refused("name: t\nrequires: [runtime]\nsteps:\n  - nrt_init: ../x\n", 4, 15, "a process name is a word");
    refused("name: t\nrequires: [runtime]\nsteps:\n  - nrt_init: emulator\n", 4, 15, "not 'emulator'");
}

BOOST_AUTO_TEST_CASE(waits_are_at_most_a_day) {
    refused(head + "  - read: a\n    expect: {number: 1}\n    within: 90000s\n", 5, 13, "at most a day");
    refused("name: t\ntimeout: 9999999s\nsteps: [{read: a}]\n", 2, 10, "up to a day");
}

namespace {

std::string reading_matches(const std::string& pattern) {
    return head + "  - read: a\n    expect:\n      matches: '" + pattern + "'\n";
}

} // namespace

BOOST_AUTO_TEST_CASE(a_regex_is_bounded_before_it_is_compiled) {
    // Nested 30 000 deep, std::regex's recursive compiler overflowed the stack.
    const auto deep = std::string(30'000, '(') + "a" + std::string(30'000, ')');
    refused(reading_matches(deep), 5, 16, "matches has 60001 characters; a pattern has at most 1024");
    refused(reading_matches(std::string(1025, 'a')), 5, 16, "matches has 1025 characters");
    const auto nested = [](int levels) { return std::string(levels, '(') + "a" + std::string(levels, ')'); };
    refused(reading_matches(nested(33)), 5, 16, "matches nests groups deeper than 32 levels");
    refused(reading_matches("(?:" + nested(32) + ")"), 5, 16, "deeper than 32 levels");
    // Each {m,n} copies what it repeats: a few characters that compile to a million states.
    refused(reading_matches("((a{100}){100}){100}"), 5, 16, "too large a pattern: more than 10000 terms");
    refused(reading_matches("(ab){99999999999999999999}"), 5, 16, "too large a pattern");
    for (const auto& fine :
         {nested(32), std::string(1024, 'a'), std::string("[0-9a-f]{16}\\n"),
          std::string("[[:digit:]]+ [^]x]{2,} a{3,}"), std::string("((ab){10}){99}"), std::string("\\{1000000\\}")}) {
        BOOST_TEST_CONTEXT(fine) { BOOST_CHECK_NO_THROW(parse(reading_matches(fine))); }
    }
}

BOOST_AUTO_TEST_CASE(a_path_must_stay_inside_the_tree) {
    refused(head + "  - write: /etc/passwd\n    value: x\n", 3, 12, "a path is relative to the tree's root");
    refused(head + "  - write: neuron0/../../../etc/passwd\n    value: x\n", 3, 12,
            "a path stays inside the tree: '..' is not allowed in 'neuron0/../../../etc/passwd'");
    refused(head + "  - write: ..\n    value: x\n", 3, 12, "'..' is not allowed");
    refused(head + "  - read: neuron0/..\n", 3, 11, "'..' is not allowed");
    refused(head + "  - stat: ../x\n    expect: {size: 1}\n", 3, 11, "'..' is not allowed");
    refused(head + "  - list: /\n    expect: {}\n", 3, 11, "relative to the tree's root");
    refused(head + "  - watch: ../x\n", 3, 12, "'..' is not allowed");
    BOOST_CHECK_NO_THROW(parse(head + "  - write: neuron0/a..b/..c\n    value: x\n"));
}

BOOST_AUTO_TEST_CASE(partial_reads_relations_and_runtime_logs_parse) {
    const auto s = parse(head + "  - read: neuron0/x\n    offset: 3\n    size: 2\n    expect: {equals: \"ab\"}\n"
                                "  - watch: neuron0/y\n    as: y\n"
                                "  - pread: y\n    offset: 1\n"
                                "  - relation: {sum: [neuron0/a, neuron0/b], at_most: neuron0/c}\n"
                                "  - relation: {symmetric: connected_devices}\n");
    BOOST_TEST_REQUIRE(s.steps.size() == 5u);
    const auto& read = std::get<read_step>(s.steps[0].what);
    BOOST_TEST_REQUIRE(read.part.has_value());
    BOOST_TEST(read.part->offset == 3u);
    BOOST_TEST(read.part->size == 2u);
    BOOST_TEST(std::get<pread_step>(s.steps[2].what).part.size == 4096u);
    const auto& sum = std::get<relation_step>(s.steps[3].what);
    BOOST_TEST(sum.sum.size() == 2u);
    BOOST_TEST((sum.how == relation_step::compare::at_most));
    BOOST_TEST(sum.other.size() == 1u);
}

BOOST_AUTO_TEST_CASE(partial_reads_relations_and_runtime_logs_say_what_is_wrong) {
    refused(head + "  - read: neuron0/x\n    offset: 1\n    expect: {unchanged: true}\n", 5, 13,
            "part of a file is compared with nothing before it");
    refused(head + "  - read: neuron0/x\n    size: 0\n", 4, 11, "size must be from 1 to 4096, not 0");
    refused(head + "  - pread: y\n    size: 4\n", 3, 5, "a pread step needs 'offset'");
    refused(head + "  - relation: {sum: [neuron0/a]}\n", 3, 15, "compared with one of equals, at_most and at_least");
    refused(head + "  - relation: {same_text: [neuron0/a]}\n", 3, 27, "same_text compares two files or more");
    refused(head + "  - relation: {symmetric: a/b}\n", 3, 27, "symmetric names a file of each device directory");
    refused(head + "  - relation: {sum: [../a], equals: b}\n", 3, 22, "..");
    refused("name: t\nrequires: [runtime]\nsteps:\n  - runtime_log: app\n    expect: {line: \"(\"}\n", 5, 20,
            "line is not a valid regular expression");
    refused("name: t\nrequires: [runtime]\nsteps:\n  - runtime_log: app\n    expect: {}\n", 5, 13,
            "needs line or no_line");
}

BOOST_AUTO_TEST_CASE(a_refused_setup_names_its_pair_and_runs_no_steps) {
    const auto s =
        parse("name: t\nsetup: {instance: trn2.3xlarge, driver_version: \"2.15\", refused: true}\nsteps: []\n");
    BOOST_TEST(s.setup.refused);
    BOOST_TEST(s.steps.empty());
    refused("name: t\nsetup: {instance: trn2.3xlarge, refused: true}\nsteps: []\n", 2, 42,
            "a refused setup names the instance and the driver_version");
    refused("name: t\nsetup: {instance: trn2.3xlarge, driver_version: \"2.15\", refused: true}\nsteps: [{read: a}]\n",
            3, 8, "a setup the driver refuses runs no steps");
    refused("name: t\nsteps: []\n", 2, 8, "a scenario needs at least one step");
}

BOOST_AUTO_TEST_CASE(debug_events_are_checked_field_by_field) {
    const auto s = parse("name: t\nrequires: [runtime]\nsteps:\n  - debug_read: app\n    count: 1\n"
                         "    events: [{prefix: a, shape: [2, 3], bytes: 24}]\n");
    const auto& r = std::get<debug_read_step>(s.steps[0].what);
    BOOST_TEST_REQUIRE(r.events.size() == 1u);
    BOOST_TEST(r.events[0].fields.at("shape").raw() == "2,3");
    BOOST_TEST(r.events[0].fields.at("bytes").raw() == "24");
    refused("name: t\nrequires: [runtime]\nsteps:\n  - debug_read: app\n    count: 2\n    events: [{prefix: a}]\n", 6,
            13, "give one event per event read (2)");
    refused("name: t\nrequires: [runtime]\nsteps:\n  - debug_read: app\n    count: 1\n    events: [{colour: a}]\n", 6,
            15, "unknown key 'colour' in an event");
}
