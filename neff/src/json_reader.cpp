#include "json_reader.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace neuron::neff::detail {

using kind = json_value::kind;

json_value::kind json_value::type() const { return m_doc->m_nodes[m_index].kind; }
std::string_view json_value::text() const { return m_doc->m_nodes[m_index].text; }
std::string_view json_value::key() const { return m_doc->m_nodes[m_index].key; }
std::size_t json_value::size() const { return m_doc->m_nodes[m_index].count; }

json_value::iterator& json_value::iterator::operator++() {
    m_index = m_doc->m_nodes[m_index].end;
    return *this;
}

json_value::iterator json_value::begin() const {
    const auto& n = m_doc->m_nodes[m_index];
    return {m_doc, n.count == 0 ? n.end : m_index + 1};
}

json_value::iterator json_value::end() const { return {m_doc, m_doc->m_nodes[m_index].end}; }

std::optional<json_value> json_value::find(std::string_view key) const {
    if (!is_object()) return std::nullopt;
    for (const auto member : *this) {
        if (member.key() == key) return member;
    }
    return std::nullopt;
}

namespace {

constexpr std::size_t stop_interval = 64 * 1024;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (code >> 6)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (code >> 12)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (code >> 18)));
        out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
}

} // namespace

// One pass over the text with an explicit stack of the open arrays and objects.
class json_parser {
public:
    json_parser(json_document& doc, std::string_view text, std::string_view source, const stop_test& stopped,
                const json_limits& limits)
            : m_doc(doc), m_text(text), m_source(common::printable(source, 200)), m_stopped(stopped), m_limits(limits) {
    }

    void run() {
        std::string_view key;
        for (;;) {
            poll_stop();
            // A value: a scalar, or an array or object opened.
            skip_space();
            if (at_end()) fail("the text ends where a value should be");
            const char c = m_text[m_at];
            if (c == '{' || c == '[') {
                if (m_open.size() == m_limits.max_depth) {
                    fail(fmt::format("nested more than {} deep", m_limits.max_depth));
                }
                m_open.push_back(add(c == '{' ? kind::object : kind::array, {}, key));
                ++m_at;
                skip_space();
                if (!at_end() && m_text[m_at] == (c == '{' ? '}' : ']')) {
                    ++m_at;
                    close();
                } else {
                    key = c == '{' ? member_key() : std::string_view();
                    continue;
                }
            } else {
                scalar(key);
            }
            // After a value: the next one of the open array or object, or its end.
            for (;;) {
                skip_space();
                if (m_open.empty()) {
                    if (!at_end()) fail("more text follows the document");
                    return;
                }
                const bool object = m_doc.m_nodes[m_open.back()].kind == kind::object;
                if (at_end()) fail(object ? "the text ends inside an object" : "the text ends inside an array");
                const char next = m_text[m_at++];
                if (next == ',') {
                    key = object ? member_key() : std::string_view();
                    break;
                }
                if (next != (object ? '}' : ']')) {
                    --m_at;
                    fail(object ? "',' or '}' expected" : "',' or ']' expected");
                }
                close();
            }
        }
    }

private:
    bool at_end() const { return m_at >= m_text.size(); }

    void skip_space() { advance_while(is_space); }

    // Past the characters `keep` takes, asking the stop test on the way.
    template <typename Keep>
    void advance_while(Keep keep) {
        for (;;) {
            const auto stop = std::min(m_text.size(), m_next_poll);
            while (m_at < stop && keep(m_text[m_at])) ++m_at;
            if (m_at < stop || at_end()) return;
            poll_stop();
        }
    }

    void poll_stop() {
        if (m_at < m_next_poll) return;
        m_next_poll = m_at + stop_interval;
        if (m_stopped && m_stopped()) throw read_cancelled("reading the NEFF was stopped");
    }

    [[noreturn]] void fail(std::string_view what) const {
        const auto before = m_text.substr(0, std::min(m_at, m_text.size()));
        const auto line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
        const auto line_start = before.rfind('\n');
        const auto column = before.size() - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
        throw neff_error(fmt::format("{}:{}:{}: malformed JSON: {}", m_source, line, column, what));
    }

    std::uint32_t add(kind k, std::string_view text, std::string_view key) {
        auto& nodes = m_doc.m_nodes;
        if (nodes.size() == m_limits.max_values) {
            throw neff_error(fmt::format("{}: more than {} JSON values", m_source, m_limits.max_values));
        }
        if (!m_open.empty()) ++nodes[m_open.back()].count;
        const auto index = static_cast<std::uint32_t>(nodes.size());
        nodes.push_back({text, key, index + 1, 0, k});
        return index;
    }

    // Ends the innermost open array or object; an object's keys must differ.
    void close() {
        const auto index = m_open.back();
        m_open.pop_back();
        auto& nodes = m_doc.m_nodes;
        nodes[index].end = static_cast<std::uint32_t>(nodes.size());
        if (nodes[index].kind != kind::object || nodes[index].count < 2) return;
        std::vector<std::string_view> keys;
        keys.reserve(nodes[index].count);
        for (auto i = index + 1; i < nodes[index].end; i = nodes[i].end) keys.push_back(nodes[i].key);
        std::sort(keys.begin(), keys.end());
        const auto twice = std::adjacent_find(keys.begin(), keys.end());
        if (twice != keys.end()) {
            throw neff_error(
                fmt::format("{}: an object gives the key \"{}\" twice", m_source, common::printable(*twice, 100)));
        }
    }

    // `"key" :` of an object's member.
    std::string_view member_key() {
        skip_space();
        if (at_end() || m_text[m_at] != '"') fail("a member's key (a string) expected");
        const auto key = string();
        skip_space();
        if (at_end() || m_text[m_at] != ':') fail("':' expected after a member's key");
        ++m_at;
        return key;
    }

    void scalar(std::string_view key) {
        const char c = m_text[m_at];
        if (c == '"') {
            const auto text = string();
            add(kind::string, text, key);
            return;
        }
        if (c == '-' || is_digit(c)) {
            add(kind::number, number(), key);
            return;
        }
        for (const auto& [word, k] : {std::pair{std::string_view("true"), kind::boolean},
                                      {std::string_view("false"), kind::boolean},
                                      {std::string_view("null"), kind::null}}) {
            if (m_text.substr(m_at, word.size()) == word) {
                add(k, word, key);
                m_at += word.size();
                return;
            }
        }
        fail("a value expected");
    }

    std::string_view number() {
        const auto begin = m_at;
        if (m_text[m_at] == '-') ++m_at;
        if (at_end() || !is_digit(m_text[m_at])) fail("a digit expected");
        if (m_text[m_at] == '0') {
            ++m_at;
        } else {
            advance_while(is_digit);
        }
        if (!at_end() && m_text[m_at] == '.') {
            ++m_at;
            if (at_end() || !is_digit(m_text[m_at])) fail("a digit expected after '.'");
            advance_while(is_digit);
        }
        if (!at_end() && (m_text[m_at] == 'e' || m_text[m_at] == 'E')) {
            ++m_at;
            if (!at_end() && (m_text[m_at] == '+' || m_text[m_at] == '-')) ++m_at;
            if (at_end() || !is_digit(m_text[m_at])) fail("a digit expected in the exponent");
            advance_while(is_digit);
        }
        return m_text.substr(begin, m_at - begin);
    }

    // A string from its opening quote: a view of the text, or of its
    // unescaped copy when it has escapes.
    std::string_view string() {
        const auto begin = ++m_at;
        advance_while([](char c) { return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20; });
        if (at_end()) fail("the text ends inside a string");
        if (static_cast<unsigned char>(m_text[m_at]) < 0x20) fail("a control character inside a string");
        if (m_text[m_at] == '"') return m_text.substr(begin, m_at++ - begin);
        auto& out = m_doc.m_strings.emplace_back(m_text.substr(begin, m_at - begin));
        for (;;) {
            if (at_end()) fail("the text ends inside a string");
            poll_stop();
            const char c = m_text[m_at++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) {
                --m_at;
                fail("a control character inside a string");
            }
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (at_end()) fail("the text ends inside a string");
            const char e = m_text[m_at++];
            switch (e) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '/': out.push_back('/'); break;
            case 'b': out.push_back('\b'); break;
            case 'f': out.push_back('\f'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'u': append_utf8(out, code_point()); break;
            default: --m_at; fail("an unknown escape in a string");
            }
        }
    }

    // After "\u": the code point, a surrogate pair joined; a lone surrogate is U+FFFD.
    std::uint32_t code_point() {
        const auto high = hex4();
        if (high < 0xD800 || high > 0xDFFF) return high;
        if (high <= 0xDBFF && m_text.substr(m_at, 2) == "\\u") {
            const auto saved = m_at;
            m_at += 2;
            const auto low = hex4();
            if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
            m_at = saved;
        }
        return 0xFFFD;
    }

    std::uint32_t hex4() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i, ++m_at) {
            if (at_end()) fail("the text ends inside a \\u escape");
            const char c = m_text[m_at];
            const auto digit = is_digit(c)              ? c - '0'
                               : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                               : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                        : -1;
            if (digit < 0) fail("four hex digits expected after \\u");
            v = v * 16 + static_cast<std::uint32_t>(digit);
        }
        return v;
    }

    json_document& m_doc;
    std::string_view m_text;
    std::string m_source;
    const stop_test& m_stopped;
    const json_limits& m_limits;
    std::size_t m_at = 0;
    std::size_t m_next_poll = 0;
    std::vector<std::uint32_t> m_open; // the arrays and objects not yet closed, outermost first
};

json_document::json_document(std::string_view text, std::string_view source, const stop_test& stopped,
                             const json_limits& limits) {
    json_parser(*this, text, source, stopped, limits).run();
}

} // namespace neuron::neff::detail
