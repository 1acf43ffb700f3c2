#include "neuron/tools/monitor_config.h"

#include "neuron/common/closest_match.h"
#include "neuron/common/printable.h"
#include "neuron/common/yaml_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <span>

namespace neuron::tools {
namespace {

constexpr std::array<std::string_view, runtime_metric_count> runtime_names{"neuroncore_counters", "execution_stats",
                                                                           "memory_used", "neuron_runtime_vcpu_usage"};
constexpr std::array<std::string_view, system_metric_count> system_names{"neuron_hw_counters", "vcpu_usage",
                                                                         "memory_info"};

// yaml-cpp reads JSON as the flow style of YAML. What JSON would not accept
// and YAML does is refused where it matters: a document that is not a
// {...} object, and unquoted text where a string is due.
class config_reader {
public:
    explicit config_reader(std::string_view source) : m_fields(std::string(source)) {}

    monitor_config read(std::string_view text) {
        const auto root = load(text);
        monitor_config config;
        m_fields.only_keys(root, {"period", "neuron_runtimes", "system_metrics"}, "the configuration");
        if (const auto p = root["period"]) config.period_ns = period(p);
        if (const auto list = root["neuron_runtimes"]) {
            m_fields.require_sequence(list, "\"neuron_runtimes\"");
            for (std::size_t i = 0; i < list.size(); ++i) {
                config.neuron_runtimes.push_back(selection(list[i], config.period_ns, i));
            }
        }
        if (const auto list = root["system_metrics"]) {
            m_fields.require_sequence(list, "\"system_metrics\"");
            for (std::size_t i = 0; i < list.size(); ++i) {
                const auto context = fmt::format("\"system_metrics\"[{}]", i);
                const auto [type, node] = metric_type(list[i], context);
                const auto at = std::ranges::find(system_names, type);
                if (at == system_names.end()) fail(node, unknown_type(type, true));
                const auto metric = static_cast<system_metric>(at - system_names.begin());
                const auto twice = std::ranges::find(config.system_metrics, metric, &system_metric_config::type);
                if (twice != config.system_metrics.end()) {
                    fail(node, fmt::format("\"{}\" is listed twice in \"system_metrics\"", type));
                }
                config.system_metrics.push_back({metric, metric_period(list[i], config.period_ns)});
            }
        }
        return config;
    }

private:
    YAML::Node load(std::string_view text) {
        YAML::Node root;
        try {
            root = m_fields.load(text);
        } catch (const common::yaml_error& e) {
            throw monitor_config_error(fmt::format("{} (the configuration must be JSON)", e.what()));
        }
        if (!root.IsMap() || root.Style() != YAML::EmitterStyle::Flow) {
            fail(root, "the configuration must be a JSON object ({ ... })");
        }
        return root;
    }

    [[noreturn]] void fail(const YAML::Node& node, std::string_view message) const {
        throw monitor_config_error(fmt::format("{}: {}", m_fields.where(node), message));
    }

    std::string string(const YAML::Node& node, std::string_view what) const {
        if (!node.IsScalar() || node.Tag() != "!") {
            const auto shown = node.IsScalar() ? fmt::format(" {}", common::printable(node.Scalar(), 64))
                                               : std::string(node.IsMap()        ? " an object"
                                                             : node.IsSequence() ? " a list"
                                                                                 : " null");
            fail(node, fmt::format("{} must be a JSON string (in double quotes), not{}", what, shown));
        }
        return node.Scalar();
    }

    std::uint64_t period(const YAML::Node& node) const {
        const auto text = string(node, "\"period\"");
        const auto d = parse_duration(text);
        if (!d.error.empty()) fail(node, fmt::format("\"period\": {}", d.error));
        const auto quoted = common::printable(text, 64);
        if (d.ns <= 0) fail(node, fmt::format("\"period\" must be more than 0, not '{}'", quoted));
        const auto ns = static_cast<std::uint64_t>(d.ns);
        if (ns < min_monitor_period_ns) fail(node, fmt::format("\"period\" '{}' is shorter than 1ms", quoted));
        if (ns > max_monitor_period_ns) fail(node, fmt::format("\"period\" '{}' is longer than 24h", quoted));
        return ns;
    }

    std::uint64_t metric_period(const YAML::Node& metric, std::uint64_t inherited) const {
        const auto p = metric["period"];
        return p ? period(p) : inherited;
    }

    // The "type" of one metric group object, and its node.
    std::pair<std::string, YAML::Node> metric_type(const YAML::Node& metric, std::string_view context) {
        m_fields.require_map(metric, context);
        m_fields.only_keys(metric, {"type", "period"}, context);
        const auto node = metric["type"];
        if (!node) fail(metric, fmt::format("{} needs a \"type\"", context));
        return {string(node, "\"type\""), node};
    }

    static std::string unknown_type(const std::string& type, bool system) {
        const auto quoted = common::printable(type, 64);
        if (type == "inference_stats") {
            return "metric type \"inference_stats\" was renamed \"execution_stats\" (the old name is no longer "
                   "accepted)";
        }
        const auto& other =
            system ? std::span<const std::string_view>(runtime_names) : std::span<const std::string_view>(system_names);
        if (std::ranges::find(other, type) != other.end()) {
            return system
                       ? fmt::format(
                             "\"{}\" is a runtime metric group: list it in a \"neuron_runtimes\" entry's \"metrics\"",
                             type)
                       : fmt::format("\"{}\" is a system metric group: list it in \"system_metrics\"", type);
        }
        const auto& own =
            system ? std::span<const std::string_view>(system_names) : std::span<const std::string_view>(runtime_names);
        std::vector<std::string> names(own.begin(), own.end());
        const auto hint = common::closest_match(type, names);
        return fmt::format("unknown {} metric type \"{}\"{}", system ? "system" : "runtime", quoted,
                           hint ? fmt::format("; did you mean \"{}\"?", *hint)
                                : fmt::format(" (valid: {})", fmt::join(names, ", ")));
    }

    runtime_selection selection(const YAML::Node& entry, std::uint64_t root_period, std::size_t index) {
        const auto context = fmt::format("\"neuron_runtimes\"[{}]", index);
        m_fields.require_map(entry, context);
        m_fields.only_keys(entry, {"tag_filter", "metrics", "period"}, context);
        runtime_selection s;
        const auto inherited = metric_period(entry, root_period);
        if (const auto filter = entry["tag_filter"]) {
            s.tag_filter = string(filter, "\"tag_filter\"");
            s.filter = compile(filter, s.tag_filter);
        }
        const auto metrics = entry["metrics"];
        if (!metrics) fail(entry, fmt::format("{} needs \"metrics\" (a list of {{\"type\": ...}})", context));
        m_fields.require_sequence(metrics, fmt::format("{}: \"metrics\"", context));
        for (std::size_t i = 0; i < metrics.size(); ++i) {
            const auto [type, node] = metric_type(metrics[i], fmt::format("{}.metrics[{}]", context, i));
            const auto at = std::ranges::find(runtime_names, type);
            if (at == runtime_names.end()) fail(node, unknown_type(type, false));
            const auto metric = static_cast<runtime_metric>(at - runtime_names.begin());
            if (std::ranges::find(s.metrics, metric, &runtime_metric_config::type) != s.metrics.end()) {
                fail(node, fmt::format("\"{}\" is listed twice in {}.metrics", type, context));
            }
            s.metrics.push_back({metric, metric_period(metrics[i], inherited)});
        }
        return s;
    }

    std::regex compile(const YAML::Node& node, const std::string& pattern) const {
        if (pattern.size() > max_tag_filter_length) {
            fail(node, fmt::format("\"tag_filter\" is {} characters long; at most {} are allowed", pattern.size(),
                                   max_tag_filter_length));
        }
        auto flags = std::regex::ECMAScript;
#ifdef __GLIBCXX__
        // libstdc++'s matcher without backtracking: no filter can make a
        // match take exponential time (back-references are refused instead).
        flags |= std::regex_constants::__polynomial;
#endif
        try {
            return std::regex(pattern, flags);
        } catch (const std::regex_error& e) {
            fail(node, fmt::format("\"tag_filter\" '{}' is not a valid regular expression: {}",
                                   common::printable(pattern, 64), common::printable_message(e.what())));
        }
    }

    common::yaml_fields m_fields;
};

} // namespace

std::string_view metric_name(runtime_metric metric) { return runtime_names.at(static_cast<std::size_t>(metric)); }
std::string_view metric_name(system_metric metric) { return system_names.at(static_cast<std::size_t>(metric)); }

bool runtime_selection::matches(std::string_view tag) const {
    if (!filter) return true;
    try {
        return std::regex_search(tag.begin(), tag.end(), *filter);
    } catch (const std::regex_error&) {
        return false; // the matcher gave up (too complex): not a match
    }
}

monitor_config default_monitor_config() {
    monitor_config config;
    runtime_selection all;
    for (std::size_t i = 0; i < runtime_metric_count; ++i) {
        all.metrics.push_back({static_cast<runtime_metric>(i), config.period_ns});
    }
    config.neuron_runtimes.push_back(std::move(all));
    for (std::size_t i = 0; i < system_metric_count; ++i) {
        config.system_metrics.push_back({static_cast<system_metric>(i), config.period_ns});
    }
    return config;
}

monitor_config parse_monitor_config(std::string_view text, std::string_view source) {
    try {
        return config_reader(source).read(text);
    } catch (const common::yaml_error& e) {
        throw monitor_config_error(e.what());
    } catch (const YAML::Exception& e) {
        throw monitor_config_error(fmt::format("{}:{}:{}: {}", common::printable(source), e.mark.line + 1,
                                               e.mark.column + 1, common::printable_message(e.msg)));
    }
}

} // namespace neuron::tools
