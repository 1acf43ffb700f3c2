#pragma once

#include <cstdint>
#include <map>
#include <optional>
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

    class result {
    public:
        bool has(std::string_view name) const;
        const std::string& value(std::string_view name) const; // the option or its default
        std::uint64_t unsigned_value(std::string_view name) const;
        double number_value(std::string_view name) const;

    private:
        friend class argument_parser;
        std::string m_command;
        std::map<std::string, std::string, std::less<>> m_values;
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
};

// Strict number parsing for CLI values: decimal or 0x-hex, no sign, no junk.
std::uint64_t parse_unsigned(std::string_view text, std::string_view what);

} // namespace neuron::cli
