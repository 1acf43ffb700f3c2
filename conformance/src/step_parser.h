#pragma once

// The steps of a scenario file (one part of scenario_parser).

#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/capability.h"
#include "neuron/conformance/steps.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace neuron::conformance {

class step_parser {
public:
    // `models`: the scenario's inline model names; `directory`: where model
    // files named by path are.
    step_parser(common::yaml_fields& fields, std::set<std::string> models, std::string directory, bool stepped_time);

    step_list parse_list(const YAML::Node& list);

    // The first step needing each capability, to check against requires:.
    const std::map<capability, source_location>& needs() const { return m_needs; }

    // One row per action: its key, the keys beside it in the step, the
    // capability it needs and the member that reads it. The only list of
    // actions: the parser, its messages and --schema all come from it.
    struct verb_spec {
        std::string_view verb;
        std::vector<std::string_view> modifiers;
        std::optional<capability> needs;
        action (step_parser::*parse)(const YAML::Node& node, const YAML::Node& value);
    };
    static const std::vector<verb_spec>& verbs();

private:
    step parse_step(const YAML::Node& node);

    // Tree steps.
    action parse_read(const YAML::Node& node, const YAML::Node& value);
    action parse_write(const YAML::Node& node, const YAML::Node& value);
    action parse_stat(const YAML::Node& node, const YAML::Node& value);
    action parse_list_step(const YAML::Node& node, const YAML::Node& value);
    action parse_watch(const YAML::Node& node, const YAML::Node& value);
    action parse_poll(const YAML::Node& node, const YAML::Node& value);
    action parse_rearm(const YAML::Node& node, const YAML::Node& value);
    action parse_pread(const YAML::Node& node, const YAML::Node& value);
    action parse_for_each(const YAML::Node& node, const YAML::Node& value);
    action parse_relation(const YAML::Node& node, const YAML::Node& value);
    file_part part(const YAML::Node& node);
    text_template pattern(const YAML::Node& node, std::string_view what);
    value_check check(const YAML::Node& expect);
    value_check part_check(const YAML::Node& expect);

    // Emulator steps.
    action parse_inject_ecc(const YAML::Node& node, const YAML::Node& value);
    action parse_inject_fault(const YAML::Node& node, const YAML::Node& value);
    action parse_set_repair_state(const YAML::Node& node, const YAML::Node& value);
    action parse_reset(const YAML::Node& node, const YAML::Node& value);
    action parse_fail_resets(const YAML::Node& node, const YAML::Node& value);
    action parse_emit_debug(const YAML::Node& node, const YAML::Node& value);
    action parse_advance(const YAML::Node& node, const YAML::Node& value);
    action parse_stream_status(const YAML::Node& node, const YAML::Node& value);

    // Runtime steps.
    action parse_nrt_init(const YAML::Node& node, const YAML::Node& value);
    action parse_nrt_load(const YAML::Node& node, const YAML::Node& value);
    action parse_nrt_execute(const YAML::Node& node, const YAML::Node& value);
    action parse_nrt_wait(const YAML::Node& node, const YAML::Node& value);
    action parse_nrt_unload(const YAML::Node& node, const YAML::Node& value);
    action parse_nrt_close(const YAML::Node& node, const YAML::Node& value);
    action parse_run_model(const YAML::Node& node, const YAML::Node& value);
    action parse_quit(const YAML::Node& node, const YAML::Node& value);
    action parse_exit(const YAML::Node& node, const YAML::Node& value);
    action parse_abort(const YAML::Node& node, const YAML::Node& value);
    action parse_kill(const YAML::Node& node, const YAML::Node& value);
    action parse_expect_exit(const YAML::Node& node, const YAML::Node& value);
    action parse_runtime_log(const YAML::Node& node, const YAML::Node& value);
    action parse_debug_connect(const YAML::Node& node, const YAML::Node& value);
    action parse_debug_read(const YAML::Node& node, const YAML::Node& value);
    action parse_debug_drain(const YAML::Node& node, const YAML::Node& value);
    action parse_debug_close(const YAML::Node& node, const YAML::Node& value);
    std::string process_name(const YAML::Node& node);
    std::string status(const YAML::Node& node);
    std::string expected_status(const YAML::Node& node, std::string fallback);
    std::vector<std::string> statuses(const YAML::Node& node);
    std::map<std::string, std::string> environment(const YAML::Node& node);
    std::string model(const YAML::Node& node);
    int core(const YAML::Node& node, int fallback);

    // Shared readers.
    text_template text(const YAML::Node& node, std::string_view what);
    // A number, or text with placeholders that is to be one (at most `max`).
    text_template numeric(const YAML::Node& node, std::string_view what, std::uint64_t max = UINT64_MAX);
    // A path in the tree: relative, without '..' (the steps run as root).
    text_template tree_path(const YAML::Node& node);
    std::uint32_t user(const YAML::Node& node);
    int error_name(const YAML::Node& node);
    std::uint64_t number(const YAML::Node& node, std::string_view what, std::uint64_t max = UINT64_MAX);
    void need(capability c, const YAML::Node& node);
    std::string location(const YAML::Node& node) const;

    common::yaml_fields& m_fields;
    std::set<std::string> m_models;
    std::string m_directory;
    bool m_stepped_time;
    std::vector<std::set<std::string>> m_scopes; // variables bound by enclosing for_each steps
    std::map<capability, source_location> m_needs;
};

} // namespace neuron::conformance
