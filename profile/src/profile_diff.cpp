#include "neuron/profile/profile_diff.h"

#include "neuron/profile/naming.h"
#include "neuron/profile/summary.h"

#include "neuron/common/json_writer.h"

#include <fmt/format.h>

#include <map>
#include <optional>

namespace neuron::profile {
namespace {

struct work_total {
    std::uint64_t count = 0;
    std::uint64_t ns = 0;
};

// Instruction count and time per shown opcode or per engine label.
struct breakdown {
    std::map<std::string, work_total> opcodes;
    std::map<std::string, work_total> engines;
};

breakdown break_down(const core_timeline& t) {
    breakdown b;
    const auto opcodes = shown_opcodes(t);
    for (const auto& r : t.instructions) {
        const auto ns = to_ns(r.end_ps) - to_ns(r.start_ps);
        auto& o = b.opcodes[opcodes[r.opcode]];
        ++o.count;
        o.ns += ns;
        auto& e = b.engines[std::string(engine_names[r.engine])];
        ++e.count;
        e.ns += ns;
    }
    return b;
}

// A summary field of both profiles: numbers are compared, text is not.
struct field_pair {
    std::string key;
    std::optional<summary_value> a;
    std::optional<summary_value> b;
};

std::vector<field_pair> pair_fields(const core_timeline& a, const core_timeline& b) {
    std::vector<field_pair> out;
    std::map<std::string, std::size_t> at;
    for (const auto& f : summarize(a)) {
        at[f.key] = out.size();
        out.push_back({f.key, f.value, std::nullopt});
    }
    for (const auto& f : summarize(b)) {
        const auto it = at.find(f.key);
        if (it == at.end()) {
            out.push_back({f.key, std::nullopt, f.value});
        } else {
            out[it->second].b = f.value;
        }
    }
    return out;
}

double number(const summary_value& v) {
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return 0;
}

bool numeric(const std::optional<summary_value>& v) { return v && !std::holds_alternative<std::string>(*v); }

bool both_counts(const field_pair& f) {
    return f.a && f.b && std::holds_alternative<std::uint64_t>(*f.a) && std::holds_alternative<std::uint64_t>(*f.b);
}

std::string shown(const std::optional<summary_value>& v) {
    if (!v) return "-";
    return std::visit([](const auto& x) { return fmt::format("{}", x); }, *v);
}

std::string signed_delta(double d) { return fmt::format("{:+.6g}", d); }

std::string signed_delta(std::uint64_t a, std::uint64_t b) {
    return b >= a ? fmt::format("+{}", b - a) : fmt::format("-{}", a - b);
}

std::int64_t delta(std::uint64_t a, std::uint64_t b) {
    return b >= a ? static_cast<std::int64_t>(b - a) : -static_cast<std::int64_t>(a - b);
}

void write_table(std::string& out, std::string_view title, const std::map<std::string, work_total>& a,
                 const std::map<std::string, work_total>& b) {
    out += fmt::format("\n{:<26} {:>12} {:>12} {:>12} {:>14} {:>14} {:>14}\n", title, "count A", "count B", "delta",
                       "time A (ns)", "time B (ns)", "delta");
    std::map<std::string, std::pair<work_total, work_total>> rows;
    for (const auto& [k, v] : a) rows[k].first = v;
    for (const auto& [k, v] : b) rows[k].second = v;
    for (const auto& [k, v] : rows) {
        out += fmt::format("{:<26} {:>12} {:>12} {:>12} {:>14} {:>14} {:>14}\n", k, v.first.count, v.second.count,
                           signed_delta(v.first.count, v.second.count), v.first.ns, v.second.ns,
                           signed_delta(v.first.ns, v.second.ns));
    }
}

void write_rows(common::json_writer& out, const std::map<std::string, work_total>& a,
                const std::map<std::string, work_total>& b) {
    std::map<std::string, std::pair<work_total, work_total>> rows;
    for (const auto& [k, v] : a) rows[k].first = v;
    for (const auto& [k, v] : b) rows[k].second = v;
    out.begin_object();
    for (const auto& [k, v] : rows) {
        out.key(k).begin_object();
        out.key("count_a").value(v.first.count).key("count_b").value(v.second.count);
        out.key("count_delta").value(delta(v.first.count, v.second.count));
        out.key("time_ns_a").value(v.first.ns).key("time_ns_b").value(v.second.ns);
        out.key("time_ns_delta").value(delta(v.first.ns, v.second.ns));
        out.end_object();
    }
    out.end_object();
}

std::string title_of(const core_timeline& t) {
    return fmt::format("{} on {} nd{} nc{} (execution {})", t.model_name, t.instance_type, t.device, t.core,
                       t.execution);
}

} // namespace

std::string diff_text(const core_timeline& a, const core_timeline& b) {
    std::string out = fmt::format("A: {}\nB: {}\n\n{:<40} {:>22} {:>22} {:>22}\n", title_of(a), title_of(b), "summary",
                                  "A", "B", "B - A");
    for (const auto& f : pair_fields(a, b)) {
        const auto d = both_counts(f) ? signed_delta(std::get<std::uint64_t>(*f.a), std::get<std::uint64_t>(*f.b))
                       : numeric(f.a) && numeric(f.b) ? signed_delta(number(*f.b) - number(*f.a))
                                                      : std::string("-");
        out += fmt::format("{:<40} {:>22} {:>22} {:>22}\n", f.key, shown(f.a), shown(f.b), d);
    }
    const auto x = break_down(a);
    const auto y = break_down(b);
    write_table(out, "opcode", x.opcodes, y.opcodes);
    write_table(out, "engine", x.engines, y.engines);
    return out;
}

std::string diff_json(const core_timeline& a, const core_timeline& b) {
    common::json_writer out;
    out.begin_object();
    out.key("a").value(title_of(a)).key("b").value(title_of(b));
    out.key("summary").begin_object();
    for (const auto& f : pair_fields(a, b)) {
        out.key(f.key).begin_object();
        for (const auto& [name, v] : {std::pair{"a", f.a}, std::pair{"b", f.b}}) {
            out.key(name);
            if (v) {
                std::visit([&](const auto& x) { out.value(x); }, *v);
            } else {
                out.value(nullptr);
            }
        }
        if (both_counts(f)) {
            out.key("delta").value(delta(std::get<std::uint64_t>(*f.a), std::get<std::uint64_t>(*f.b)));
        } else if (numeric(f.a) && numeric(f.b)) {
            out.key("delta").value(number(*f.b) - number(*f.a));
        }
        out.end_object();
    }
    out.end_object();
    const auto x = break_down(a);
    const auto y = break_down(b);
    out.key("opcodes");
    write_rows(out, x.opcodes, y.opcodes);
    out.key("engines");
    write_rows(out, x.engines, y.engines);
    out.end_object();
    return out.str();
}

} // namespace neuron::profile
