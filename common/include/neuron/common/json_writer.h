#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::common {

// Writes indented JSON. Callers pair begin/end and give a key before each
// value inside an object; strings are escaped per RFC 8259.
class json_writer {
public:
    // `indent` false: one line, no spaces (for large documents).
    explicit json_writer(bool indent = true) : m_indent(indent) {}

    json_writer& begin_object();
    json_writer& end_object();
    json_writer& begin_array();
    json_writer& end_array();
    json_writer& key(std::string_view name);
    json_writer& value(std::string_view text);
    json_writer& value(const char* text) { return value(std::string_view(text)); }
    json_writer& value(std::uint64_t number);
    json_writer& value(std::int64_t number);
    json_writer& value(std::uint32_t number) { return value(std::uint64_t{number}); }
    json_writer& value(bool flag);
    // The shortest form that reads back as the same double; null when it is
    // not finite (JSON has no NaN or infinity).
    json_writer& value(double number);
    json_writer& value(std::nullptr_t);

    const std::string& str() const { return m_out; }
    // What was written since the last take(), moved out: a large document
    // is written in pieces, the writer carrying on where it was.
    std::string take() {
        std::string out;
        out.swap(m_out);
        return out;
    }

private:
    void before_value();
    void open(char bracket);
    void close(char bracket);
    void newline();

    std::string m_out;
    std::vector<bool> m_first; // per open container: no element written yet
    bool m_after_key = false;
    bool m_indent = true;
};

std::string json_escape(std::string_view text);

} // namespace neuron::common
