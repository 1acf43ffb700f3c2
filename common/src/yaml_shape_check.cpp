#include "yaml_shape_check.h"

#include "neuron/common/printable.h"
#include "neuron/common/yaml_fields.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace neuron::common {
namespace {

// The expanded size of each node as it is read: `m_nodes` counts every node
// the document would have if each alias were replaced by a copy of what it
// names.
class shape_counter final : public YAML::EventHandler {
public:
    shape_counter(const std::string& source, const yaml_shape_limits& limits) : m_source(source), m_limits(limits) {}

    void OnDocumentStart(const YAML::Mark& mark) override {
        if (++m_documents > 1) fail(mark, "a second document is not allowed (a file holds one YAML document)");
    }
    void OnDocumentEnd() override {}

    void OnAnchor(const YAML::Mark&, const std::string& name) override { m_anchor_name = name; }

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
        leaf(mark, anchor);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const auto done = m_anchors.find(anchor);
        if (done == m_anchors.end()) {
            // yaml-cpp refuses unknown names itself, so the anchor is still open.
            const auto open =
                std::find_if(m_open.begin(), m_open.end(), [&](const auto& n) { return n.anchor == anchor; });
            const auto name = open == m_open.end() ? std::string() : open->anchor_name;
            const auto at = open == m_open.end() ? mark : open->mark;
            fail(mark, fmt::format("alias *{} is inside the node it names (&{} at line {}): it would repeat forever",
                                   printable(name, 64), printable(name, 64), at.line + 1));
        }
        add(mark, done->second.nodes, done->second.height);
        entry(mark);
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, anchor, false);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, anchor, true);
    }
    void OnMapEnd() override { close(); }

private:
    struct open_node {
        YAML::anchor_t anchor;
        std::string anchor_name;
        YAML::Mark mark;
        std::uint64_t nodes_before; // m_nodes before this node
        std::size_t height;         // levels in this node's subtree so far, itself included
        bool map;
        std::size_t children = 0; // keys and values, for a map
    };
    struct anchored {
        std::uint64_t nodes;
        std::size_t height;
    };

    // `nodes` more nodes `height` levels deep stand at the current position.
    void add(const YAML::Mark& mark, std::uint64_t nodes, std::size_t height) {
        m_nodes += nodes; // cannot wrap: every earlier total and anchored size is within the budget
        if (m_nodes > m_limits.max_nodes) {
            fail(mark, fmt::format("the document has more than {} nodes, counting each alias as the nodes it "
                                   "repeats",
                                   m_limits.max_nodes));
        }
        if (m_open.size() + height > m_limits.max_depth) {
            fail(mark, fmt::format("the document nests deeper than {} levels, counting each alias as the nodes it "
                                   "repeats",
                                   m_limits.max_depth));
        }
        if (!m_open.empty()) m_open.back().height = std::max(m_open.back().height, height + 1);
    }

    // One more key or value in the enclosing map: yaml-cpp looks through a
    // map's entries for each one it adds, so a huge map costs the square.
    void entry(const YAML::Mark& mark) {
        if (m_open.empty() || !m_open.back().map) return;
        if (++m_open.back().children > 2 * m_limits.max_map_keys) {
            fail(mark, fmt::format("a map has more than {} keys", m_limits.max_map_keys));
        }
    }

    void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
        add(mark, 1, 1);
        entry(mark);
        if (anchor != YAML::NullAnchor) m_anchors[anchor] = {1, 1};
        m_anchor_name.clear();
    }

    void open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
        const auto before = m_nodes;
        add(mark, 1, 1);
        entry(mark);
        m_open.push_back({anchor, anchor != YAML::NullAnchor ? m_anchor_name : std::string(), mark, before, 1, map});
        m_anchor_name.clear();
    }

    void close() {
        const auto node = m_open.back();
        m_open.pop_back();
        if (node.anchor != YAML::NullAnchor) m_anchors[node.anchor] = {m_nodes - node.nodes_before, node.height};
        if (!m_open.empty()) m_open.back().height = std::max(m_open.back().height, node.height + 1);
    }

    [[noreturn]] void fail(const YAML::Mark& mark, std::string_view message) const {
        throw yaml_error(fmt::format("{}:{}:{}: {}", printable(m_source), mark.line + 1, mark.column + 1, message));
    }

    const std::string& m_source;
    const yaml_shape_limits m_limits;
    int m_documents = 0;
    std::uint64_t m_nodes = 0;
    std::string m_anchor_name;
    std::vector<open_node> m_open;
    std::unordered_map<YAML::anchor_t, anchored> m_anchors;
};

} // namespace

void check_yaml_shape(std::string_view text, const std::string& source, const yaml_shape_limits& limits) {
    std::istringstream in{std::string(text)};
    shape_counter counter(source, limits);
    try {
        YAML::Parser parser(in);
        // The second call returns at once unless a second document starts,
        // which the counter refuses.
        if (parser.HandleNextDocument(counter)) parser.HandleNextDocument(counter);
    } catch (const YAML::Exception& e) {
        throw yaml_error(fmt::format("{}:{}:{}: {}", printable(source), e.mark.line + 1, e.mark.column + 1,
                                     printable_message(e.msg)));
    }
}

} // namespace neuron::common
