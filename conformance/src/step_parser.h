#pragma once

// The steps of a scenario file (one part of scenario_parser).

#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/capability.h"
#include "neuron/conformance/steps.h"

#include <map>
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

private:
    step parse_step(const YAML::Node& node);
    action parse_action(const std::string& verb, const YAML::Node& node, const YAML::Node& value);

    // Tree steps.
    read_step read(const YAML::Node& node, const YAML::Node& value);
    write_step write(const YAML::Node& node, const YAML::Node& value);
    file_part part(const YAML::Node& node);
    relation_step relation(const YAML::Node& value);
    text_template pattern(const YAML::Node& node, std::string_view what);
    stat_step stat(const YAML::Node& node, const YAML::Node& value);
    list_step list(const YAML::Node& node, const YAML::Node& value);
    poll_step poll(const YAML::Node& node, const YAML::Node& value);
    for_each_step for_each(const YAML::Node& node, const YAML::Node& value);
    value_check check(const YAML::Node& expect);

    // Emulator steps.
    emit_debug_step emit_debug(const YAML::Node& node, const YAML::Node& value);
    stream_status_step stream_status(const YAML::Node& node, const YAML::Node& value);

    // Runtime steps.
    run_model_step run_model(const YAML::Node& node, const YAML::Node& value);
    nrt_execute_step nrt_execute(const YAML::Node& node, const YAML::Node& value);
    std::string process_name(const YAML::Node& node);
    std::string status(const YAML::Node& node);
    std::vector<std::string> statuses(const YAML::Node& node);
    std::map<std::string, std::string> environment(const YAML::Node& node);
    std::string model(const YAML::Node& node);
    int core(const YAML::Node& node, int fallback);

    // Shared readers.
    text_template text(const YAML::Node& node, std::string_view what);
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
