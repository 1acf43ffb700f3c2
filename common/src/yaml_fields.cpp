#include "neuron/common/yaml_fields.h"

#include "yaml_shape_check.h"

#include "neuron/common/closest_match.h"
#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <unordered_map>
#include <vector>

namespace neuron::common {
namespace {

std::string_view type_name(const YAML::Node& node) {
    switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "nothing";
    default: return "undefined";
    }
}

// Input text quoted in a message: escaped, and cut when long.
std::string quoted(std::string_view text) { return printable(text, 200); }

// The whole number `value` says, or why it is not one of 0 to `max`.
std::pair<std::uint64_t, std::string> whole_number(std::string_view value, std::string_view what, std::uint64_t max) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
        return {0, fmt::format("{} must be a whole number of 0 or more, not '{}'", what, quoted(value))};
    }
    if (n > max) return {0, fmt::format("{} must be at most {}, not {}", what, max, n)};
    return {n, {}};
}

std::string not_a_boolean(std::string_view value, std::string_view what) {
    return fmt::format("{} must be true or false, not '{}'", what, quoted(value));
}

} // namespace

YAML::Node yaml_fields::load(std::string_view text) {
    // Before any node is built: the loaded nodes share what aliases name, so
    // loading is cheap even when walking them would never end.
    check_yaml_shape(text, m_source, {m_max_nodes, max_depth, max_map_keys});
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
        throw yaml_error(fmt::format("{}:{}:{}: {}", printable(m_source), e.mark.line + 1, e.mark.column + 1,
                                     printable_message(e.msg)));
    }
    m_empty_values.clear();
    check_document(root);
    return root;
}

// The walk is bounded: the shape check has capped the nodes it visits
// (aliases included) and its depth.
void yaml_fields::check_document(const YAML::Node& node) {
    if (node.IsSequence()) {
        for (const auto& item : node) check_document(item);
        return;
    }
    if (!node.IsMap()) return;
    std::unordered_map<std::string_view, YAML::Mark> keys;
    keys.reserve(node.size());
    for (const auto& entry : node) {
        if (entry.first.IsScalar()) {
            // The key's text lives in the document's nodes, which outlive the map.
            const auto [first, added] = keys.emplace(entry.first.Scalar(), entry.first.Mark());
            if (!added) {
                fail(entry.first, fmt::format("key '{}' is given twice (first at line {})",
                                              quoted(entry.first.Scalar()), first->second.line + 1));
            }
        }
        if (entry.second.IsNull()) m_empty_values.emplace_back(entry.second, entry.first.Mark());
        check_document(entry.second);
    }
}

std::string yaml_fields::where(const YAML::Node& node) const {
    auto mark = node.Mark();
    for (const auto& [value, key_mark] : m_empty_values) {
        if (value.is(node)) mark = key_mark;
    }
    return where(mark);
}

std::string yaml_fields::where(const YAML::Mark& mark) const {
    // An empty document has no position at all: its first line stands in.
    if (mark.is_null()) return fmt::format("{}:1:1", printable(m_source));
    return fmt::format("{}:{}:{}", printable(m_source), mark.line + 1, mark.column + 1);
}

void yaml_fields::fail(const YAML::Node& node, std::string_view message) const {
    throw yaml_error(fmt::format("{}: {}", where(node), message));
}

void yaml_fields::fail(const YAML::Mark& mark, std::string_view message) const {
    throw yaml_error(fmt::format("{}: {}", where(mark), message));
}

void yaml_fields::require_map(const YAML::Node& node, std::string_view what) const {
    if (!node.IsMap()) fail(node, fmt::format("{} must be a map, not {}", what, type_name(node)));
}

void yaml_fields::require_sequence(const YAML::Node& node, std::string_view what) const {
    if (!node.IsSequence()) fail(node, fmt::format("{} must be a list, not {}", what, type_name(node)));
}

void yaml_fields::only_keys(const YAML::Node& map, std::span<const std::string_view> allowed,
                            std::string_view context) const {
    require_map(map, context);
    for (const auto& entry : map) check_key(entry.first.Scalar(), entry.first.Mark(), allowed, context);
}

void yaml_fields::check_key(std::string_view key, const YAML::Mark& mark, std::span<const std::string_view> allowed,
                            std::string_view context) const {
    for (const auto& name : allowed) {
        if (name == key) return;
    }
    const std::vector<std::string> names(allowed.begin(), allowed.end());
    const auto hint = closest_match(key, names);
    fail(mark, fmt::format("unknown key '{}' in {}{}", quoted(key), context,
                           hint ? fmt::format("; did you mean '{}'?", *hint)
                                : fmt::format(" (valid: {})", fmt::join(names, ", "))));
}

const YAML::Node yaml_fields::required(const YAML::Node& map, std::string_view key, std::string_view context) const {
    const auto value = map[std::string(key)];
    if (!value) fail(map, fmt::format("{} needs '{}'", context, key));
    return value;
}

std::string yaml_fields::text(const YAML::Node& node, std::string_view what) const {
    if (!node.IsScalar()) fail(node, fmt::format("{} must be text, not {}", what, type_name(node)));
    return node.Scalar();
}

std::uint64_t yaml_fields::unsigned_number(const YAML::Node& node, std::string_view what, std::uint64_t max) const {
    const auto [n, problem] = whole_number(text(node, what), what, max);
    if (!problem.empty()) fail(node, problem);
    return n;
}

std::uint64_t yaml_fields::unsigned_number(std::string_view value, const YAML::Mark& mark, std::string_view what,
                                           std::uint64_t max) const {
    const auto [n, problem] = whole_number(value, what, max);
    if (!problem.empty()) fail(mark, problem);
    return n;
}

double yaml_fields::number(const YAML::Node& node, std::string_view what) const {
    const auto value = text(node, what);
    double d = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), d);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || !std::isfinite(d)) {
        fail(node, fmt::format("{} must be a number, not '{}'", what, quoted(value)));
    }
    return d;
}

bool yaml_fields::boolean(const YAML::Node& node, std::string_view what) const {
    const auto value = text(node, what);
    if (value == "true" || value == "false") return value == "true";
    fail(node, not_a_boolean(value, what));
}

bool yaml_fields::boolean(std::string_view value, const YAML::Mark& mark, std::string_view what) const {
    if (value == "true" || value == "false") return value == "true";
    fail(mark, not_a_boolean(value, what));
}

} // namespace neuron::common
