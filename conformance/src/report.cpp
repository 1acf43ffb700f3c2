#include "neuron/conformance/report.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace neuron::conformance {
namespace {

std::string indented(const std::string& text, std::string_view prefix) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        out += fmt::format("{}{}\n", prefix, text.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

using common::printable_lines;
using common::printable_message;

// Reasons, steps and what the processes said quote scenario files, tree
// contents and child output: each line is escaped before it is printed.
std::string failure_text(const report_entry& e) {
    std::string text;
    if (!e.outcome.step.empty()) {
        text += fmt::format("step {}{}\n", printable_message(e.outcome.step),
                            e.outcome.where.empty() ? "" : " at " + printable_message(e.outcome.where));
    }
    text += printable_lines(e.outcome.reason) + "\n";
    return text;
}

} // namespace

std::string xml_escape(std::string_view text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        case '\n': out += "&#10;"; break;
        case '\t': out += "&#9;"; break;
        default:
            // XML 1.0 has no other control characters.
            if (static_cast<unsigned char>(c) < 0x20) {
                out += '?';
            } else {
                out += c;
            }
        }
    }
    return out;
}

std::string report_entry::label() const {
    return target.empty() ? what->name : fmt::format("{} [{}]", what->name, target);
}

void print_entry(std::FILE* out, const report_entry& e) {
    const auto& o = e.outcome;
    if (o.result == verdict::skip) {
        fmt::print(out, "SKIP  {:<52} {}\n", e.label(), printable_message(o.reason));
    } else {
        fmt::print(out, "{}  {:<52} {}\n", verdict_name(o.result), e.label(), format_seconds(o.duration));
    }
    if (o.result == verdict::fail) {
        fmt::print(out, "{}", indented(failure_text(e), "      "));
        if (!o.details.empty()) {
            fmt::print(out, "      what the processes said:\n{}", indented(printable_lines(o.details), "      "));
        }
        fmt::print(out, "      repro: {}\n", printable_message(e.repro));
    }
    std::fflush(out);
}

void print_summary(std::FILE* out, const std::vector<report_entry>& entries, nanoseconds total) {
    std::size_t passed = 0, failed = 0, skipped = 0;
    for (const auto& e : entries) {
        passed += e.outcome.result == verdict::pass;
        failed += e.outcome.result == verdict::fail;
        skipped += e.outcome.result == verdict::skip;
    }
    std::vector<const report_entry*> ran;
    for (const auto& e : entries) {
        if (e.outcome.result != verdict::skip) ran.push_back(&e);
    }
    std::sort(ran.begin(), ran.end(),
              [](const auto* a, const auto* b) { return a->outcome.duration > b->outcome.duration; });
    if (ran.size() > 1) {
        fmt::print(out, "\nslowest:");
        for (std::size_t i = 0; i < std::min<std::size_t>(5, ran.size()); ++i) {
            fmt::print(out, " {} {}{}", ran[i]->label(), format_seconds(ran[i]->outcome.duration),
                       i + 1 < std::min<std::size_t>(5, ran.size()) ? "," : "");
        }
        fmt::print(out, "\n");
    }
    fmt::print(out, "\n{} scenario{}: {} passed, {} failed, {} skipped in {}\n", entries.size(),
               entries.size() == 1 ? "" : "s", passed, failed, skipped, format_seconds(total));
    if (failed > 0) {
        fmt::print(out, "failed:\n");
        for (const auto& e : entries) {
            if (e.outcome.result == verdict::fail) fmt::print(out, "  {}\n", printable_message(e.repro));
        }
    }
}

std::string junit_xml(const std::vector<report_entry>& entries, const std::string& target_name, nanoseconds total) {
    std::map<std::string, std::vector<const report_entry*>> groups;
    for (const auto& e : entries) groups[e.what->group()].push_back(&e);
    const auto count = [](const std::vector<const report_entry*>& list, verdict v) {
        return std::count_if(list.begin(), list.end(), [v](const auto* e) { return e->outcome.result == v; });
    };
    const auto seconds = [](nanoseconds d) { return fmt::format("{:.3f}", static_cast<double>(d.count()) / 1e9); };
    std::size_t failures = 0, skipped = 0;
    for (const auto& e : entries) {
        failures += e.outcome.result == verdict::fail;
        skipped += e.outcome.result == verdict::skip;
    }
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    xml +=
        fmt::format("<testsuites name=\"neuron-conformance\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\" "
                    "time=\"{}\">\n",
                    entries.size(), failures, skipped, seconds(total));
    for (const auto& [group, list] : groups) {
        nanoseconds group_time{0};
        for (const auto* e : list) group_time += e->outcome.duration;
        xml += fmt::format(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" errors=\"0\" time=\"{}\">\n",
            xml_escape(group), list.size(), count(list, verdict::fail), count(list, verdict::skip),
            seconds(group_time));
        xml += fmt::format("    <properties><property name=\"target\" value=\"{}\"/></properties>\n",
                           xml_escape(printable_message(target_name)));
        for (const auto* e : list) {
            xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{}\"", xml_escape(group),
                               xml_escape(e->label()), xml_escape(printable_message(e->what->file)),
                               seconds(e->outcome.duration));
            switch (e->outcome.result) {
            case verdict::pass: xml += "/>\n"; break;
            case verdict::skip:
                xml += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                                   xml_escape(printable_message(e->outcome.reason)));
                break;
            case verdict::fail:
                xml += fmt::format(">\n      <failure message=\"{}\" type=\"step\">{}</failure>\n",
                                   xml_escape(printable_lines(e->outcome.reason)),
                                   xml_escape(failure_text(*e) + printable_lines(e->outcome.details) +
                                              "repro: " + printable_message(e->repro)));
                xml += "    </testcase>\n";
                break;
            }
        }
        xml += "  </testsuite>\n";
    }
    xml += "</testsuites>\n";
    return xml;
}

} // namespace neuron::conformance
