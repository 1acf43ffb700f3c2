#include "neuron/conformance/text_template.h"

#include <stdexcept>

namespace neuron::conformance {
namespace {

bool identifier_start(char c) { return (c >= 'a' && c <= 'z') || c == '_'; }
bool identifier_char(char c) { return identifier_start(c) || (c >= '0' && c <= '9'); }

// Calls `on_text(text)` and `on_name(name)` for the pieces of `text`, in order.
template <typename Text, typename Name>
void scan(std::string_view text, Text on_text, Name on_name) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto open = text.find('{', i);
        if (open == std::string_view::npos) break;
        auto end = open + 1;
        if (end < text.size() && identifier_start(text[end])) {
            while (end < text.size() && identifier_char(text[end])) ++end;
        }
        if (end > open + 1 && end < text.size() && text[end] == '}') {
            on_text(text.substr(i, open - i));
            on_name(text.substr(open + 1, end - open - 1));
            i = end + 1;
        } else {
            on_text(text.substr(i, open + 1 - i));
            i = open + 1;
        }
    }
    on_text(text.substr(i));
}

} // namespace

std::vector<std::string> text_template::placeholders() const {
    std::vector<std::string> names;
    scan(
        m_text, [](std::string_view) {}, [&](std::string_view name) { names.emplace_back(name); });
    return names;
}

std::string text_template::expand(const bindings& values) const {
    std::string out;
    scan(
        m_text, [&](std::string_view text) { out += text; },
        [&](std::string_view name) {
            const auto it = values.find(name);
            if (it == values.end()) throw std::logic_error("placeholder {" + std::string(name) + "} has no value");
            out += it->second;
        });
    return out;
}

} // namespace neuron::conformance
