#include "step_parser.h"

#include "tree_path.h"

#include "neuron/common/closest_match.h"
#include "neuron/common/posix_names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <pwd.h>

namespace neuron::conformance {

const std::vector<step_parser::verb_spec>& step_parser::verbs() {
    using p = step_parser;
    static const std::vector<verb_spec> all{
        {"read", {"expect", "within", "as_user", "offset", "size"}, std::nullopt, &p::parse_read},
        {"write", {"value", "expect", "written", "as_user"}, std::nullopt, &p::parse_write},
        {"stat", {"expect"}, std::nullopt, &p::parse_stat},
        {"list", {"expect"}, std::nullopt, &p::parse_list_step},
        {"watch", {"as"}, std::nullopt, &p::parse_watch},
        {"poll", {"expect", "within"}, std::nullopt, &p::parse_poll},
        {"rearm", {"expect"}, std::nullopt, &p::parse_rearm},
        {"pread", {"offset", "size", "expect"}, std::nullopt, &p::parse_pread},
        {"for_each", {"do"}, std::nullopt, &p::parse_for_each},
        {"relation", {}, std::nullopt, &p::parse_relation},
        {"inject_ecc", {}, capability::inject_ecc, &p::parse_inject_ecc},
        {"set_repair_state", {}, capability::inject_ecc, &p::parse_set_repair_state},
        {"inject_fault", {}, capability::inject_fault, &p::parse_inject_fault},
        {"reset", {"expect"}, capability::model_control, &p::parse_reset},
        {"fail_resets", {}, capability::fail_resets, &p::parse_fail_resets},
        {"emit_debug", {"expect"}, capability::debug_stream, &p::parse_emit_debug},
        {"advance", {}, capability::time_control, &p::parse_advance},
        {"stream_status", {"expect"}, capability::debug_stream, &p::parse_stream_status},
        {"nrt_init", {"env", "expect", "visible"}, capability::runtime, &p::parse_nrt_init},
        {"nrt_load", {"model", "as", "core", "expect"}, capability::runtime, &p::parse_nrt_load},
        {"nrt_execute", {"model", "count", "expect", "wait"}, capability::runtime, &p::parse_nrt_execute},
        {"nrt_wait", {"expect"}, capability::runtime, &p::parse_nrt_wait},
        {"nrt_unload", {"model", "expect"}, capability::runtime, &p::parse_nrt_unload},
        {"nrt_close", {}, capability::runtime, &p::parse_nrt_close},
        {"run_model", {"process", "env", "core", "executions", "expect"}, capability::runtime, &p::parse_run_model},
        {"quit", {}, capability::runtime, &p::parse_quit},
        {"exit", {}, capability::runtime, &p::parse_exit},
        {"abort", {}, capability::runtime, &p::parse_abort},
        {"kill", {"signal"}, capability::runtime, &p::parse_kill},
        {"expect_exit", {"status", "signal"}, capability::runtime, &p::parse_expect_exit},
        {"runtime_log", {"expect"}, capability::runtime, &p::parse_runtime_log},
        {"debug_connect", {"core", "expect"}, capability::runtime, &p::parse_debug_connect},
        {"debug_read", {"core", "count", "expect", "prefixes", "events"}, capability::runtime, &p::parse_debug_read},
        {"debug_drain", {"core", "expect"}, capability::runtime, &p::parse_debug_drain},
        {"debug_close", {"core"}, capability::runtime, &p::parse_debug_close},
    };
    return all;
}

namespace {

const step_parser::verb_spec* find_verb(std::string_view name) {
    for (const auto& v : step_parser::verbs()) {
        if (v.verb == name) return &v;
    }
    return nullptr;
}

std::vector<std::string> verb_names() {
    std::vector<std::string> names;
    for (const auto& v : step_parser::verbs()) names.emplace_back(v.verb);
    return names;
}

} // namespace

step_parser::step_parser(common::yaml_fields& fields, std::set<std::string> models, std::string directory,
                         bool stepped_time)
        : m_fields(fields), m_models(std::move(models)), m_directory(std::move(directory)),
          m_stepped_time(stepped_time) {}

std::string step_parser::location(const YAML::Node& node) const { return m_fields.where(node); }

void step_parser::need(capability c, const YAML::Node& node) {
    if (m_needs.contains(c)) return;
    const auto mark = node.Mark();
    m_needs.emplace(c, source_location{m_fields.source(), mark.line + 1, mark.column + 1});
}

step_list step_parser::parse_list(const YAML::Node& list) {
    m_fields.require_sequence(list, "steps");
    step_list steps;
    for (const auto& node : list) steps.push_back(parse_step(node));
    return steps;
}

step step_parser::parse_step(const YAML::Node& node) {
    m_fields.require_map(node, "a step");
    if (node.size() == 0)
        m_fields.fail(node, fmt::format("a step needs an action ({})", fmt::join(verb_names(), ", ")));
    const verb_spec* spec = nullptr;
    YAML::Node verb_key;
    for (const auto& entry : node) {
        const auto* found = find_verb(entry.first.Scalar());
        if (found == nullptr) continue;
        if (spec != nullptr) {
            m_fields.fail(entry.first, fmt::format("a step does one thing: '{}' and '{}' are both actions", spec->verb,
                                                   found->verb));
        }
        spec = found;
        verb_key = entry.first;
    }
    if (spec == nullptr) {
        const auto first = node.begin()->first.Scalar();
        const auto hint = common::closest_match(first, verb_names());
        m_fields.fail(node.begin()->first,
                      fmt::format("unknown action '{}'{}", first,
                                  hint ? fmt::format("; did you mean '{}'?", *hint)
                                       : fmt::format(" (actions: {})", fmt::join(verb_names(), ", "))));
    }
    std::vector<std::string_view> allowed{spec->verb};
    allowed.insert(allowed.end(), spec->modifiers.begin(), spec->modifiers.end());
    m_fields.only_keys(node, std::span<const std::string_view>(allowed), fmt::format("a {} step", spec->verb));
    if (spec->needs) need(*spec->needs, verb_key);
    const std::string verb(spec->verb);
    const auto value = node[verb];
    step s;
    const auto mark = verb_key.Mark();
    s.where = {m_fields.source(), mark.line + 1, mark.column + 1};
    s.verb = verb;
    s.summary = value.IsScalar() ? fmt::format("{} {}", verb, value.Scalar()) : verb;
    s.what = (this->*spec->parse)(node, value);
    return s;
}

// ---- shared readers

text_template step_parser::numeric(const YAML::Node& node, std::string_view what, std::uint64_t max) {
    auto t = text(node, what);
    // Without placeholders it is checked now; with them, once they are filled in.
    if (t.placeholders().empty()) (void)number(node, what, max);
    return t;
}

text_template step_parser::tree_path(const YAML::Node& node) {
    auto path = text(node, "a path");
    if (const auto why = tree_path_refusal(path.raw())) m_fields.fail(node, *why);
    if (is_host_path(path.raw())) need(capability::host_paths, node);
    return path;
}

text_template step_parser::text(const YAML::Node& node, std::string_view what) {
    text_template t(m_fields.text(node, what));
    for (const auto& name : t.placeholders()) {
        bool bound = false;
        std::vector<std::string> known;
        for (const auto& scope : m_scopes) {
            bound = bound || scope.contains(name);
            known.insert(known.end(), scope.begin(), scope.end());
        }
        if (bound) continue;
        const auto hint = common::closest_match(name, known);
        m_fields.fail(node, fmt::format("{{{}}} is not bound here{}", name,
                                        hint ? fmt::format("; did you mean {{{}}}?", *hint)
                                             : std::string(" (placeholders come from an enclosing for_each)")));
    }
    return t;
}

std::uint32_t step_parser::user(const YAML::Node& node) {
    need(capability::root, node);
    const auto name = m_fields.text(node, "as_user");
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
        return static_cast<std::uint32_t>(number(node, "as_user", UINT32_MAX - 1));
    }
    if (const passwd* pw = ::getpwnam(name.c_str())) return pw->pw_uid;
    if (name == "nobody") return 65534;
    m_fields.fail(node, fmt::format("no user '{}' on this machine (give a uid)", name));
}

int step_parser::error_name(const YAML::Node& node) {
    const auto name = m_fields.text(node, "an errno name");
    const auto e = common::errno_from_name(name);
    if (!e) m_fields.fail(node, fmt::format("unknown errno name '{}' (known: {})", name, common::errno_names()));
    return *e;
}

std::uint64_t step_parser::number(const YAML::Node& node, std::string_view what, std::uint64_t max) {
    return m_fields.unsigned_number(node, what, max);
}

} // namespace neuron::conformance
