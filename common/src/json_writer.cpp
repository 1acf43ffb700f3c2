#include "neuron/common/json_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace neuron::common {

std::string json_escape(std::string_view text) {
    std::string out = "\"";
    for (unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += fmt::format("\\u{:04x}", c);
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

void json_writer::newline() {
    if (!m_indent) return;
    m_out += '\n';
    m_out.append(2 * m_first.size(), ' ');
}

void json_writer::before_value() {
    if (m_after_key) {
        m_after_key = false;
        return;
    }
    if (!m_first.empty()) {
        if (!m_first.back()) m_out += ',';
        m_first.back() = false;
        newline();
    }
}

void json_writer::open(char bracket) {
    before_value();
    m_out += bracket;
    m_first.push_back(true);
}

void json_writer::close(char bracket) {
    const bool empty = m_first.back();
    m_first.pop_back();
    if (!empty) newline();
    m_out += bracket;
    if (m_first.empty()) m_out += '\n'; // a document ends with a newline
}

json_writer& json_writer::begin_object() {
    open('{');
    return *this;
}
json_writer& json_writer::end_object() {
    close('}');
    return *this;
}
json_writer& json_writer::begin_array() {
    open('[');
    return *this;
}
json_writer& json_writer::end_array() {
    close(']');
    return *this;
}

json_writer& json_writer::key(std::string_view name) {
    before_value();
    m_out += json_escape(name);
    m_out += m_indent ? ": " : ":";
    m_after_key = true;
    return *this;
}

json_writer& json_writer::value(std::string_view text) {
    before_value();
    m_out += json_escape(text);
    return *this;
}

json_writer& json_writer::value(std::uint64_t number) {
    before_value();
    m_out += fmt::format("{}", number);
    return *this;
}

json_writer& json_writer::value(std::int64_t number) {
    before_value();
    m_out += fmt::format("{}", number);
    return *this;
}

json_writer& json_writer::value(bool flag) {
    before_value();
    m_out += flag ? "true" : "false";
    return *this;
}

json_writer& json_writer::value(double number) {
    before_value();
    m_out += std::isfinite(number) ? fmt::format("{}", number) : "null";
    return *this;
}

json_writer& json_writer::value(std::nullptr_t) {
    before_value();
    m_out += "null";
    return *this;
}

} // namespace neuron::common
