// The steps that act on the tree: read, relations, watch, rearm, pread,
// write, stat, list, poll, for_each, and the checks their values meet.
#include "step_parser.h"

#include "regex_limits.h"
#include "tree_path.h"

#include "neuron/common/closest_match.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <regex>

namespace neuron::conformance {
namespace {

constexpr std::array loop_keywords{std::string_view{"devices"},
                                   std::string_view{"cores"},
                                   std::string_view{"status_counters"},
                                   std::string_view{"other_info_counters"},
                                   std::string_view{"device_mem_categories"},
                                   std::string_view{"host_mem_categories"}};

// The longest a step may wait (a scenario's timeout ends it earlier anyway).
constexpr nanoseconds max_wait = std::chrono::hours(24);

bool is_keyword(std::string_view word) {
    for (const auto k : loop_keywords) {
        if (k == word) return true;
    }
    return false;
}

} // namespace

// ---- tree steps

action step_parser::parse_read(const YAML::Node& node, const YAML::Node& value) {
    read_step r;
    r.path = tree_path(value);
    const bool partial = node["offset"] || node["size"];
    if (node["expect"]) r.expect = partial ? part_check(node["expect"]) : check(node["expect"]);
    if (partial) {
        r.part = part(node);
        if (node["within"])
            m_fields.fail(node["within"], "within re-reads a whole file; a read of part of it takes none");
    }
    if (const auto within = node["within"]) {
        r.within = parse_duration(m_fields.text(within, "within"));
        if (!r.within || *r.within > max_wait) {
            m_fields.fail(
                within, fmt::format("within takes a duration of at most a day, such as 2s, not '{}'", within.Scalar()));
        }
        if (r.expect.empty()) m_fields.fail(within, "within re-reads until the expectation holds: give expect");
    }
    if (const auto u = node["as_user"]) r.as_uid = user(u);
    return r;
}

action step_parser::parse_relation(const YAML::Node&, const YAML::Node& value) {
    m_fields.require_map(value, "relation");
    m_fields.only_keys(value, {"sum", "equals", "at_most", "at_least", "same_text", "symmetric"}, "a relation");
    const auto paths = [&](const YAML::Node& n, std::string_view what) {
        std::vector<text_template> out;
        if (n.IsSequence()) {
            if (n.size() == 0) m_fields.fail(n, fmt::format("{} needs at least one file", what));
            for (const auto& item : n) out.push_back(tree_path(item));
        } else {
            out.push_back(tree_path(n));
        }
        return out;
    };
    relation_step r;
    const auto compared =
        static_cast<int>(value["equals"].IsDefined()) + value["at_most"].IsDefined() + value["at_least"].IsDefined();
    const auto kinds =
        static_cast<int>(value["sum"].IsDefined()) + value["same_text"].IsDefined() + value["symmetric"].IsDefined();
    if (kinds != 1)
        m_fields.fail(value, "a relation is one of sum (with equals, at_most or at_least), same_text or symmetric");
    if (value["sum"]) {
        if (compared != 1) m_fields.fail(value, "a sum is compared with one of equals, at_most and at_least");
        r.sum = paths(value["sum"], "sum");
        if (value["equals"]) r.other = paths(value["equals"], "equals");
        if (value["at_most"]) {
            r.how = relation_step::compare::at_most;
            r.other = paths(value["at_most"], "at_most");
        }
        if (value["at_least"]) {
            r.how = relation_step::compare::at_least;
            r.other = paths(value["at_least"], "at_least");
        }
    } else if (compared != 0) {
        m_fields.fail(value, "equals, at_most and at_least compare a sum");
    }
    if (value["same_text"]) {
        r.same_text = paths(value["same_text"], "same_text");
        if (r.same_text.size() < 2) m_fields.fail(value["same_text"], "same_text compares two files or more");
    }
    if (const auto s = value["symmetric"]) {
        r.symmetric = text(s, "symmetric");
        const auto name = s.Scalar();
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
            m_fields.fail(s, "symmetric names a file of each device directory, such as connected_devices");
        }
    }
    return r;
}

action step_parser::parse_watch(const YAML::Node& node, const YAML::Node& value) {
    watch_step w{tree_path(value), {}};
    w.name = node["as"] ? text(node["as"], "a watch name") : w.path;
    return w;
}

action step_parser::parse_rearm(const YAML::Node& node, const YAML::Node& value) {
    rearm_step r{text(value, "a watch name"), {}};
    if (node["expect"]) r.expect = check(node["expect"]);
    return r;
}

action step_parser::parse_pread(const YAML::Node& node, const YAML::Node& value) {
    pread_step p{text(value, "a watch name"), part(node), {}};
    if (!node["offset"]) m_fields.fail(node, "a pread step needs 'offset' (a rearm reads from 0)");
    if (node["expect"]) p.expect = part_check(node["expect"]);
    return p;
}

// What part of a file read at an offset must be: it is no value a later
// read compares with, nor has it one to compare with.
value_check step_parser::part_check(const YAML::Node& expect) {
    auto c = check(expect);
    if (c.compares_with_previous()) {
        m_fields.fail(expect, "part of a file is compared with nothing before it: use equals, matches or number");
    }
    return c;
}

// offset (default 0) and size (1 to 4096, default 4096) of a partial read.
file_part step_parser::part(const YAML::Node& node) {
    file_part p;
    if (node["offset"]) p.offset = number(node["offset"], "offset", 1u << 20);
    if (node["size"]) {
        p.size = static_cast<std::uint32_t>(number(node["size"], "size", 4096));
        if (p.size == 0) m_fields.fail(node["size"], "size must be from 1 to 4096, not 0");
    }
    return p;
}

action step_parser::parse_write(const YAML::Node& node, const YAML::Node& value) {
    write_step w;
    w.path = tree_path(value);
    w.value = text(m_fields.required(node, "value", "a write step"), "value");
    if (const auto e = node["expect"]) {
        w.expect_errno = m_fields.text(e, "a write's outcome") == "success" ? 0 : error_name(e);
    }
    if (const auto n = node["written"]) {
        if (w.expect_errno != 0) m_fields.fail(n, "a write that fails writes nothing: written needs expect: success");
        w.written = number(n, "written");
    }
    if (const auto u = node["as_user"]) w.as_uid = user(u);
    return w;
}

action step_parser::parse_stat(const YAML::Node& node, const YAML::Node& value) {
    stat_step s;
    s.path = tree_path(value);
    const auto e = m_fields.required(node, "expect", "a stat step");
    m_fields.only_keys(e, {"mode", "size", "type", "link", "error"}, "a stat expectation");
    if (const auto mode = e["mode"]) {
        const auto t = m_fields.text(mode, "mode");
        if (t.size() < 3 || t.size() > 4 || t.find_first_not_of("01234567") != std::string::npos) {
            m_fields.fail(mode, fmt::format("mode takes octal permission bits such as \"0644\", not '{}'", t));
        }
        s.mode = static_cast<std::uint32_t>(std::stoul(t, nullptr, 8));
    }
    if (e["size"]) s.size = number(e["size"], "size");
    if (const auto type = e["type"]) {
        s.type = m_fields.text(type, "type");
        if (*s.type != "file" && *s.type != "directory" && *s.type != "link") {
            m_fields.fail(type, fmt::format("type is file, directory or link, not '{}'", *s.type));
        }
    }
    if (e["link"]) s.link = text(e["link"], "link");
    if (e["error"]) s.error = error_name(e["error"]);
    return s;
}

action step_parser::parse_list_step(const YAML::Node& node, const YAML::Node& value) {
    list_step l;
    l.path = tree_path(value);
    const auto e = m_fields.required(node, "expect", "a list step");
    m_fields.only_keys(e, {"equals", "includes", "excludes", "error"}, "a list expectation");
    const auto names = [&](const YAML::Node& n, std::string_view what) {
        m_fields.require_sequence(n, what);
        std::vector<text_template> out;
        for (const auto& item : n) out.push_back(text(item, "an entry name"));
        return out;
    };
    if (e["equals"]) l.equals = names(e["equals"], "equals");
    if (e["includes"]) l.includes = names(e["includes"], "includes");
    if (e["excludes"]) l.excludes = names(e["excludes"], "excludes");
    if (e["error"]) l.error = error_name(e["error"]);
    return l;
}

action step_parser::parse_poll(const YAML::Node& node, const YAML::Node& value) {
    poll_step p;
    p.name = text(value, "a watch name");
    const auto e = m_fields.required(node, "expect", "a poll step");
    const auto outcome = m_fields.text(e, "a poll's outcome");
    if (outcome != "wake" && outcome != "no_wake")
        m_fields.fail(e, fmt::format("a poll expects wake or no_wake, not '{}'", outcome));
    p.wake = outcome == "wake";
    p.within = p.wake ? std::chrono::seconds(2) : std::chrono::milliseconds(200);
    if (const auto within = node["within"]) {
        const auto d = parse_duration(m_fields.text(within, "within"));
        if (!d || *d > max_wait) {
            m_fields.fail(within, fmt::format("within takes a duration of at most a day, such as 500ms, not '{}'",
                                              within.Scalar()));
        }
        p.within = *d;
    }
    return p;
}

action step_parser::parse_for_each(const YAML::Node& node, const YAML::Node& value) {
    m_fields.require_map(value, "for_each");
    if (value.size() == 0) m_fields.fail(value, "for_each needs a variable");
    for_each_step f;
    std::set<std::string> bound;
    for (const auto& entry : value) {
        loop l;
        l.variable = entry.first.Scalar();
        if (l.variable.empty() ||
            l.variable.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos ||
            (l.variable[0] >= '0' && l.variable[0] <= '9')) {
            m_fields.fail(entry.first, fmt::format("a variable name is a lowercase identifier, not '{}'", l.variable));
        }
        for (const auto& scope : m_scopes) {
            if (scope.contains(l.variable))
                m_fields.fail(entry.first, fmt::format("'{}' is already bound by an enclosing for_each", l.variable));
        }
        if (entry.second.IsSequence()) {
            if (entry.second.size() == 0) m_fields.fail(entry.second, "a for_each list needs at least one value");
            for (const auto& v : entry.second) l.values.push_back(m_fields.text(v, "a for_each value"));
        } else {
            l.keyword = m_fields.text(entry.second, "a for_each set");
            if (!is_keyword(l.keyword)) {
                std::vector<std::string> keywords(loop_keywords.begin(), loop_keywords.end());
                const auto hint = common::closest_match(l.keyword, keywords);
                m_fields.fail(entry.second, fmt::format("unknown set '{}'{} (sets: {}; or give a list)", l.keyword,
                                                        hint ? fmt::format("; did you mean '{}'?", *hint) : "",
                                                        fmt::join(keywords, ", ")));
            }
        }
        bound.insert(l.variable);
        f.loops.push_back(std::move(l));
    }
    m_scopes.push_back(bound);
    f.body = std::make_shared<step_list>(parse_list(m_fields.required(node, "do", "a for_each step")));
    m_scopes.pop_back();
    return f;
}

// A regular expression, within regex_limits and valid (once its placeholders are filled in, at run time).
text_template step_parser::pattern(const YAML::Node& node, std::string_view what) {
    auto t = text(node, what);
    // Checked before compiling, which recurses per group and term.
    if (const auto why = regex_refusal(t.raw())) m_fields.fail(node, *why);
    if (t.placeholders().empty()) {
        try {
            std::regex re(t.raw());
        } catch (const std::regex_error& e) {
            m_fields.fail(node, fmt::format("{} is not a valid regular expression: {}", what, e.what()));
        }
    }
    return t;
}

value_check step_parser::check(const YAML::Node& expect) {
    m_fields.only_keys(
        expect, {"equals", "matches", "number", "at_least", "at_most", "unchanged", "changed", "increased_by", "error"},
        "a read expectation");
    value_check c;
    if (expect["equals"]) c.equals = text(expect["equals"], "equals");
    if (const auto m = expect["matches"]) c.matches = pattern(m, "matches");
    if (expect["number"]) c.number = numeric(expect["number"], "number");
    if (expect["at_least"]) c.at_least = numeric(expect["at_least"], "at_least");
    if (expect["at_most"]) c.at_most = numeric(expect["at_most"], "at_most");
    if (expect["unchanged"]) c.unchanged = m_fields.boolean(expect["unchanged"], "unchanged");
    if (expect["changed"]) c.changed = m_fields.boolean(expect["changed"], "changed");
    if (expect["increased_by"]) c.increased_by = numeric(expect["increased_by"], "increased_by");
    if (const auto e = expect["error"]) {
        c.error = error_name(e);
        if (expect.size() > 1) m_fields.fail(e, "a read that fails has no text to check: error stands alone");
    }
    if (c.empty()) m_fields.fail(expect, "an expectation needs at least one check");
    return c;
}

} // namespace neuron::conformance
