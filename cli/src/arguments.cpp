#include "arguments.h"

#include "neuron/common/closest_match.h"
#include "usage_error.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace neuron::cli {

argument_parser::argument_parser(std::string command) : m_command(std::move(command)) {}

argument_parser& argument_parser::flag(std::string name, std::string help) {
    m_specs.push_back({std::move(name), {}, std::move(help), std::nullopt});
    return *this;
}

argument_parser& argument_parser::option(std::string name, std::string metavar, std::string help,
                                         std::optional<std::string> default_value) {
    m_specs.push_back({std::move(name), std::move(metavar), std::move(help), std::move(default_value)});
    return *this;
}

argument_parser& argument_parser::alias(std::string short_word, std::string name) {
    m_aliases[std::move(short_word)] = std::move(name);
    return *this;
}

argument_parser& argument_parser::positionals(std::string metavar, std::string help) {
    m_positionals = {std::move(metavar), std::move(help)};
    return *this;
}

const argument_parser::spec* argument_parser::find(std::string_view name) const {
    for (const auto& s : m_specs) {
        if (s.name == name) return &s;
    }
    return nullptr;
}

argument_parser::result argument_parser::parse(std::span<const std::string> args) const {
    result out;
    out.m_command = m_command;
    for (const auto& s : m_specs) {
        if (s.default_value) out.m_values[s.name] = *s.default_value;
    }
    bool options_end = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view word = args[i];
        if (!options_end && (word == "--help" || word == "-h")) {
            const auto words = m_positionals ? " " + m_positionals->first : std::string();
            throw help_requested(
                fmt::format("usage: neuron-emu {} [OPTIONS]{}\n\noptions:\n{}", m_command, words, help()));
        }
        if (m_positionals && !options_end && word == "--") {
            options_end = true;
            continue;
        }
        std::string long_word;
        if (const auto a = m_aliases.find(word); a != m_aliases.end() && !options_end) {
            long_word = "--" + a->second;
            word = long_word;
        }
        if (options_end || !word.starts_with("-") || word == "-") {
            if (!m_positionals) throw usage_error(fmt::format("{}: unexpected argument '{}'", m_command, word));
            out.m_positional.emplace_back(word);
            continue;
        }
        if (!word.starts_with("--")) {
            throw usage_error(fmt::format("{}: unknown option '{}'", m_command, word));
        }
        std::string_view name = word.substr(2);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string_view::npos) {
            inline_value = std::string(name.substr(eq + 1));
            name = name.substr(0, eq);
        }
        const spec* s = find(name);
        if (s == nullptr) {
            std::vector<std::string> names;
            for (const auto& known : m_specs) names.push_back(known.name);
            const auto hint = common::closest_match(name, names);
            throw usage_error(fmt::format("{}: unknown option '--{}'{}", m_command, name,
                                          hint ? fmt::format("; did you mean '--{}'?", *hint) : std::string()));
        }
        if (s->metavar.empty()) {
            if (inline_value) throw usage_error(fmt::format("{}: --{} takes no value", m_command, name));
            out.m_values[s->name] = "";
            out.m_given.insert(s->name);
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= args.size()) {
                throw usage_error(fmt::format("{}: --{} needs a value ({})", m_command, name, s->metavar));
            }
            inline_value = args[++i];
        }
        out.m_values[s->name] = *inline_value;
        out.m_given.insert(s->name);
    }
    return out;
}

std::string argument_parser::help() const {
    std::string text;
    for (const auto& s : m_specs) {
        std::string shorts;
        for (const auto& [word, name] : m_aliases) {
            if (name == s.name) shorts += word + ", ";
        }
        const auto left =
            shorts + (s.metavar.empty() ? fmt::format("--{}", s.name) : fmt::format("--{} {}", s.name, s.metavar));
        text += fmt::format("  {:<24} {}{}\n", left, s.help,
                            s.default_value ? fmt::format(" (default: {})", *s.default_value) : std::string());
    }
    if (m_positionals) text += fmt::format("  {:<24} {}\n", m_positionals->first, m_positionals->second);
    return text;
}

bool argument_parser::result::has(std::string_view name) const { return m_values.contains(name); }

bool argument_parser::result::given(std::string_view name) const { return m_given.contains(name); }

const std::string& argument_parser::result::value(std::string_view name) const {
    auto it = m_values.find(name);
    if (it == m_values.end()) throw usage_error(fmt::format("{}: --{} is required", m_command, name));
    return it->second;
}

std::uint64_t argument_parser::result::unsigned_value(std::string_view name) const {
    return parse_unsigned(value(name), fmt::format("--{}", name));
}

double argument_parser::result::number_value(std::string_view name) const {
    const auto& text = value(name);
    double number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(number)) {
        throw usage_error(fmt::format("{}: --{} '{}' is not a number", m_command, name, text));
    }
    return number;
}

std::uint64_t parse_unsigned(std::string_view text, std::string_view what) {
    int base = 10;
    std::string_view digits = text;
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
        base = 16;
        digits.remove_prefix(2);
    }
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
        throw usage_error(fmt::format("{} '{}' is not a non-negative integer", what, text));
    }
    if (ec == std::errc::result_out_of_range) {
        throw usage_error(fmt::format("{} '{}' is too large (at most {})", what, text, UINT64_MAX));
    }
    return value;
}

} // namespace neuron::cli
