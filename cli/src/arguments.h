#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::cli {

// The options one subcommand accepts, and the parsed result. Options are
// "--name value", "--name=value" or flags ("--json"); anything else is a
// usage_error naming the word and, for a near miss, the option meant.
class argument_parser {
public:
    explicit argument_parser(std::string command);

    argument_parser& flag(std::string name, std::string help);
    argument_parser& option(std::string name, std::string metavar, std::string help,
                            std::optional<std::string> default_value = std::nullopt);
    // "-n" for "--neff": a short word for an option or flag declared before.
    argument_parser& alias(std::string short_word, std::string name);
    // Words that are not options are kept in order (result::positional())
    // instead of being refused; "--" ends the options.
    argument_parser& positionals(std::string metavar, std::string help);

    class result {
    public:
        bool has(std::string_view name) const;                 // given, or has a default
        bool given(std::string_view name) const;               // on the command line
        const std::string& value(std::string_view name) const; // the option or its default
        std::uint64_t unsigned_value(std::string_view name) const;
        double number_value(std::string_view name) const;
        const std::vector<std::string>& positional() const { return m_positional; }

    private:
        friend class argument_parser;
        std::string m_command;
        std::map<std::string, std::string, std::less<>> m_values;
        std::set<std::string, std::less<>> m_given;
        std::vector<std::string> m_positional;
    };

    result parse(std::span<const std::string> args) const;
    std::string help() const;

private:
    struct spec {
        std::string name;
        std::string metavar; // empty for a flag
        std::string help;
        std::optional<std::string> default_value;
    };
    const spec* find(std::string_view name) const;

    std::string m_command;
    std::vector<spec> m_specs;
    std::map<std::string, std::string, std::less<>> m_aliases;        // "-n" -> "neff"
    std::optional<std::pair<std::string, std::string>> m_positionals; // metavar, help
};

// Strict number parsing for CLI values: decimal or 0x-hex, no sign, no junk.
std::uint64_t parse_unsigned(std::string_view text, std::string_view what);

} // namespace neuron::cli
