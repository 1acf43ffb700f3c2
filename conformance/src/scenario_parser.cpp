#include "neuron/conformance/scenario_parser.h"

#include "step_parser.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/state/platform_config.h"
#include "neuron/sysfs/driver_release.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace neuron::conformance {

namespace {
constexpr std::string_view scenario_key_list[] = {"name",  "description", "tags",   "requires", "applies_to",
                                                  "setup", "timeout",     "models", "steps"};
constexpr std::string_view applies_to_key_list[] = {"instances", "devices", "arch", "driver"};
constexpr std::string_view setup_key_list[] = {"instance", "driver_version", "time",   "rtf",
                                               "seed",     "notify",         "refused"};
} // namespace

std::span<const std::string_view> scenario_keys() { return scenario_key_list; }
std::span<const std::string_view> applies_to_keys() { return applies_to_key_list; }
std::span<const std::string_view> setup_keys() { return setup_key_list; }

namespace {

using common::yaml_error;
using common::yaml_fields;

class scenario_reader {
public:
    scenario_reader(const std::string& source, std::string directory)
            : m_fields(source), m_directory(std::move(directory)) {}

    scenario read(std::string_view text) {
        const auto root = m_fields.load(text);
        m_fields.only_keys(root, scenario_keys(), "a scenario");
        scenario s;
        s.file = m_fields.source();
        s.name = m_fields.text(m_fields.required(root, "name", "a scenario"), "name");
        if (s.name.empty() || s.name.find_first_of(" \t\n") != std::string::npos) {
            m_fields.fail(root["name"], "a scenario's name is one word, such as counters/write_clears_total");
        }
        if (root["description"]) s.description = m_fields.text(root["description"], "description");
        if (const auto tags = root["tags"]) {
            m_fields.require_sequence(tags, "tags");
            for (const auto& t : tags) s.tags.push_back(m_fields.text(t, "a tag"));
        }
        if (root["requires"]) s.requires_ = capabilities(root["requires"]);
        if (root["applies_to"]) s.applies_to = applies_to(root["applies_to"]);
        if (root["setup"]) s.setup = setup(root["setup"]);
        if (const auto t = root["timeout"]) {
            s.timeout = parse_duration(m_fields.text(t, "timeout"));
            if (!s.timeout || s.timeout->count() == 0 || *s.timeout > std::chrono::hours(24)) {
                m_fields.fail(t,
                              fmt::format("timeout takes a duration up to a day, such as 30s, not '{}'", t.Scalar()));
            }
        }
        if (root["models"]) s.models = models(root["models"]);

        std::set<std::string> model_names;
        for (const auto& model : s.models) model_names.insert(model.first);
        step_parser steps(m_fields, model_names, m_directory, s.setup.time == time_mode::stepped);
        s.steps = steps.parse_list(m_fields.required(root, "steps", "a scenario"));
        if (s.setup.refused && !s.steps.empty()) {
            m_fields.fail(root["steps"], "a setup the driver refuses runs no steps: give steps: []");
        }
        if (!s.setup.refused && s.steps.empty()) m_fields.fail(root["steps"], "a scenario needs at least one step");

        auto needs = steps.needs();
        if (s.setup.notify && !needs.contains(capability::root)) {
            const auto mark = root["setup"]["notify"].Mark();
            needs.emplace(capability::root, source_location{m_fields.source(), mark.line + 1, mark.column + 1});
        }
        for (const auto& [c, where] : needs) {
            if (s.requires_.contains(c)) continue;
            throw yaml_error(fmt::format("{}: this needs '{}'; list it in the scenario's requires", where.str(),
                                         capability_name(c)));
        }
        return s;
    }

private:
    capability_set capabilities(const YAML::Node& node) {
        m_fields.require_sequence(node, "requires");
        capability_set out;
        for (const auto& item : node) {
            const auto name = m_fields.text(item, "a capability");
            const auto c = find_capability(name);
            if (!c) m_fields.fail(item, fmt::format("unknown capability '{}' (known: {})", name, capability_names()));
            out.insert(*c);
        }
        return out;
    }

    applicability applies_to(const YAML::Node& node) {
        m_fields.only_keys(node, applies_to_keys(), "applies_to");
        applicability a;
        if (const auto list = node["instances"]) {
            m_fields.require_sequence(list, "instances");
            for (const auto& i : list) a.instances.push_back(instance_pattern(i));
        }
        if (const auto list = node["devices"]) {
            m_fields.require_sequence(list, "devices");
            for (const auto& d : list) {
                const auto name = m_fields.text(d, "a device name");
                if (name != "Inferentia" && name != "Inferentia2" && name != "Trainium1" && name != "Trainium2") {
                    m_fields.fail(d, fmt::format("'{}' is not a device name (Inferentia, Inferentia2, Trainium1, "
                                                 "Trainium2)",
                                                 name));
                }
                a.devices.push_back(name);
            }
        }
        if (const auto list = node["arch"]) {
            m_fields.require_sequence(list, "arch");
            for (const auto& v : list) {
                const auto t = m_fields.text(v, "an arch");
                if (t != "v1" && t != "v2" && t != "v3")
                    m_fields.fail(v, fmt::format("arch is v1, v2 or v3, not '{}'", t));
                a.arch.push_back(t[1] - '0');
            }
        }
        if (const auto d = node["driver"]) {
            if (d.IsSequence()) {
                for (const auto& b : d) a.driver.push_back(bound(b));
            } else {
                a.driver.push_back(bound(d));
            }
        }
        return a;
    }

    std::string instance_pattern(const YAML::Node& node) {
        auto name = m_fields.text(node, "an instance type");
        if (name.find_first_of("*?[") != std::string::npos) return name;
        try {
            (void)model::find_instance_type(name);
        } catch (const std::exception& e) {
            m_fields.fail(node, e.what());
        }
        return name;
    }

    version_bound bound(const YAML::Node& node) {
        const auto text = m_fields.text(node, "a driver bound");
        version_bound b;
        std::string_view rest = text;
        const std::pair<std::string_view, version_bound::relation> relations[] = {
            {">=", version_bound::relation::greater_equal},
            {"<=", version_bound::relation::less_equal},
            {"==", version_bound::relation::equal},
            {">", version_bound::relation::greater},
            {"<", version_bound::relation::less}};
        bool found = false;
        for (const auto& [op, relation] : relations) {
            if (!rest.starts_with(op)) continue;
            b.op = relation;
            rest.remove_prefix(op.size());
            found = true;
            break;
        }
        while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
        unsigned major = 0;
        unsigned minor = 0;
        char tail = 0;
        if (!found || std::sscanf(std::string(rest).c_str(), "%u.%u%c", &major, &minor, &tail) != 2 || major > 99 ||
            minor > 999) {
            m_fields.fail(node, fmt::format("a driver bound is a comparison and a release, such as \">= 2.17\", "
                                            "not '{}'",
                                            text));
        }
        b.major = static_cast<std::uint16_t>(major);
        b.minor = static_cast<std::uint16_t>(minor);
        return b;
    }

    scenario_setup setup(const YAML::Node& node) {
        m_fields.only_keys(node, setup_keys(), "setup");
        scenario_setup s;
        if (node["instance"]) {
            s.instance = instance_pattern(node["instance"]);
            if (s.instance->find_first_of("*?[") != std::string::npos)
                m_fields.fail(node["instance"], "setup's instance is one instance type, not a pattern");
        }
        // A release that does not exist fails this scenario when it runs, not the whole library.
        if (const auto v = node["driver_version"]) s.driver_version = m_fields.text(v, "driver_version");
        if (const auto t = node["time"]) {
            const auto mode = m_fields.text(t, "time");
            if (mode != "stepped" && mode != "realtime")
                m_fields.fail(t, fmt::format("time is stepped or realtime, not '{}'", mode));
            s.time = mode == "stepped" ? time_mode::stepped : time_mode::realtime;
        }
        if (const auto r = node["rtf"]) {
            s.rtf = m_fields.number(r, "rtf");
            if (!(s.rtf >= model::min_real_time_factor && s.rtf <= model::max_real_time_factor)) {
                m_fields.fail(r, fmt::format("rtf must be between {} and {}, as serve's --rtf",
                                             model::min_real_time_factor, model::max_real_time_factor));
            }
        }
        if (node["seed"]) s.seed = m_fields.unsigned_number(node["seed"], "seed");
        if (const auto r = node["refused"]) {
            s.refused = m_fields.boolean(r, "refused");
            if (s.refused && (!s.instance || !s.driver_version)) {
                m_fields.fail(r, "a refused setup names the instance and the driver_version the driver refuses");
            }
        }
        if (const auto n = node["notify"]) {
            const auto v = m_fields.text(n, "notify");
            if (v != "on" && v != "off") m_fields.fail(n, fmt::format("notify is on or off, not '{}'", v));
            s.notify = v == "on";
        }
        return s;
    }

    std::map<std::string, std::string> models(const YAML::Node& node) {
        m_fields.require_map(node, "models");
        std::map<std::string, std::string> out;
        for (const auto& entry : node) {
            const auto name = entry.first.Scalar();
            if (name.empty() || name.find_first_of("/ \t") != std::string::npos) {
                m_fields.fail(entry.first, fmt::format("a model's name is one word without '/', not '{}'", name));
            }
            m_fields.require_map(entry.second, fmt::format("model '{}'", name));
            YAML::Emitter out_text;
            out_text << entry.second;
            const std::string text = std::string(out_text.c_str()) + "\n";
            try {
                (void)control::parse_model_file(text, name);
            } catch (const yaml_error& e) {
                m_fields.fail(entry.second, fmt::format("model '{}' is not a valid model file: {}", name, e.what()));
            }
            out.emplace(name, text);
        }
        return out;
    }

    yaml_fields m_fields;
    std::string m_directory;
};

} // namespace

std::string version_bound::str() const {
    const char* symbol = ">=";
    switch (op) {
    case relation::less: symbol = "<"; break;
    case relation::less_equal: symbol = "<="; break;
    case relation::equal: symbol = "=="; break;
    case relation::greater_equal: symbol = ">="; break;
    case relation::greater: symbol = ">"; break;
    }
    return fmt::format("{} {}.{}", symbol, major, minor);
}

std::string scenario::group() const {
    const auto parent = std::filesystem::path(file).parent_path().filename().string();
    return parent.empty() ? "scenarios" : parent;
}

std::string source_location::str() const { return fmt::format("{}:{}:{}", file, line, column); }

scenario parse_scenario(std::string_view text, const std::string& source, const std::string& directory) {
    return scenario_reader(source, directory).read(text);
}

scenario parse_scenario_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw yaml_error(fmt::format("{}:1:1: cannot read the file", path));
    std::ostringstream text;
    text << in.rdbuf();
    const auto directory = std::filesystem::path(path).parent_path().string();
    return parse_scenario(text.str(), path, directory.empty() ? "." : directory);
}

} // namespace neuron::conformance
