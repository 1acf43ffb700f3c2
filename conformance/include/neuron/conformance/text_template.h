#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::conformance {

// The values for_each loops bind, by variable name.
using bindings = std::map<std::string, std::string, std::less<>>;

// Text in a scenario with placeholders: `{name}` where name is a lowercase
// identifier ([a-z_][a-z0-9_]*). Braces around anything else ("[0-9]{16}" in
// a regular expression) are plain text.
class text_template {
public:
    text_template() = default;
    text_template(std::string text) : m_text(std::move(text)) {} // NOLINT: implicit from text

    const std::string& raw() const { return m_text; }
    bool empty() const { return m_text.empty(); }

    // The placeholder names, in order of appearance.
    std::vector<std::string> placeholders() const;

    // The text with every placeholder replaced; a name without a value is an
    // unbound_placeholder (the parser has checked scopes, so it does not
    // happen for a parsed scenario).
    std::string expand(const bindings& values) const;

private:
    std::string m_text;
};

} // namespace neuron::conformance
