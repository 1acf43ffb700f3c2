#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neuron::common {

// A YAML document that is not what it should be. The message starts with
// "source:line:column: " (1-based) so editors can jump to it.
class yaml_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Strict readers over yaml-cpp nodes: each names the source and position of
// a bad value and says what was expected.
class yaml_fields {
public:
    // The most nodes a document may have, and the deepest it may nest, each
    // alias counted as the whole subtree it repeats: far above any model file
    // or scenario, and far below what keeps a walker of the nodes busy for
    // long (an alias bomb) or its stack deep.
    static constexpr std::uint64_t max_nodes = 100'000;
    static constexpr std::size_t max_depth = 64;
    // yaml-cpp finds a map's place for each key by looking through the keys
    // before it: a map of n keys loads in n^2 / 2 steps. No file we read
    // has more than a few dozen keys in one map.
    static constexpr std::size_t max_map_keys = 4096;

    explicit yaml_fields(std::string source) : m_source(std::move(source)) {}
    // A document type larger by nature (a recording of a whole sysfs tree)
    // sets its own node limit.
    yaml_fields(std::string source, std::uint64_t node_limit) : m_source(std::move(source)), m_max_nodes(node_limit) {}

    // Parses a whole document; syntax errors, a second document, an alias
    // inside the node it names, a document over max_nodes or max_depth, a map
    // over max_map_keys and a key given twice in one map become yaml_error.
    // Remembers where empty values stand, so errors about them name their
    // key's line rather than the next token's.
    YAML::Node load(std::string_view text);

    std::string where(const YAML::Node& node) const;
    [[noreturn]] void fail(const YAML::Node& node, std::string_view message) const;

    // Rejects keys outside `allowed`, suggesting the closest valid one.
    void only_keys(const YAML::Node& map, std::span<const std::string_view> allowed, std::string_view context) const;
    void only_keys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                   std::string_view context) const {
        only_keys(map, std::span<const std::string_view>(allowed.begin(), allowed.size()), context);
    }
    void require_map(const YAML::Node& node, std::string_view what) const;
    void require_sequence(const YAML::Node& node, std::string_view what) const;
    const YAML::Node required(const YAML::Node& map, std::string_view key, std::string_view context) const;

    std::string text(const YAML::Node& node, std::string_view what) const;
    std::uint64_t unsigned_number(const YAML::Node& node, std::string_view what, std::uint64_t max = UINT64_MAX) const;
    double number(const YAML::Node& node, std::string_view what) const;
    bool boolean(const YAML::Node& node, std::string_view what) const;

    // The same for a reader of yaml-cpp's events, which has no nodes: a
    // position and the text there.
    std::string where(const YAML::Mark& mark) const;
    [[noreturn]] void fail(const YAML::Mark& mark, std::string_view message) const;
    void check_key(std::string_view key, const YAML::Mark& mark, std::span<const std::string_view> allowed,
                   std::string_view context) const;
    std::uint64_t unsigned_number(std::string_view value, const YAML::Mark& mark, std::string_view what,
                                  std::uint64_t max = UINT64_MAX) const;
    bool boolean(std::string_view value, const YAML::Mark& mark, std::string_view what) const;

    const std::string& source() const { return m_source; }

private:
    void check_document(const YAML::Node& node);

    std::string m_source;
    std::uint64_t m_max_nodes = max_nodes;
    // An empty value (`key:` and nothing) has no position of its own in
    // yaml-cpp; the position of its key stands in for it.
    std::vector<std::pair<YAML::Node, YAML::Mark>> m_empty_values;
};

} // namespace neuron::common
