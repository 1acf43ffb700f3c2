#pragma once

// JSON (RFC 8259) as the NEFF loader reads its members: untrusted text read
// in one pass, in time and memory in proportion to its length, with a bound
// on its values and nesting and no recursion. A document is read once and
// then walked as often as needed.

#include "neuron/neff/neff_file.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::neff::detail {

struct json_limits {
    // 40 bytes of nodes each: a document holds at most 40 MB of them.
    std::size_t max_values = 1'000'000;
    std::size_t max_depth = 64;
};

class json_document;

// One value of a json_document, which must outlive it.
class json_value {
public:
    enum class kind : std::uint8_t { null, boolean, number, string, array, object };

    kind type() const;
    bool is_object() const { return type() == kind::object; }
    bool is_array() const { return type() == kind::array; }
    // A string's text (unescaped), a number's or a boolean's as written.
    std::string_view text() const;
    // Its key, when it is a member of an object.
    std::string_view key() const;
    // An object's members, an array's elements; 0 for anything else.
    std::size_t size() const;
    // An object's member named `key`, if it has one (a walk of its members).
    std::optional<json_value> find(std::string_view key) const;

    // Over an object's members or an array's elements, in document order.
    class iterator {
    public:
        json_value operator*() const { return {m_doc, m_index}; }
        iterator& operator++();
        bool operator==(const iterator&) const = default;

    private:
        friend class json_value;
        iterator(const json_document* doc, std::uint32_t index) : m_doc(doc), m_index(index) {}
        const json_document* m_doc;
        std::uint32_t m_index;
    };
    iterator begin() const;
    iterator end() const;

private:
    friend class json_document;
    json_value(const json_document* doc, std::uint32_t index) : m_doc(doc), m_index(index) {}
    const json_document* m_doc;
    std::uint32_t m_index;
};

class json_document {
public:
    // Reads `text` (which must outlive the document). Throws neff_error
    // naming `source` and, for a syntax error, its line and column:
    // malformed JSON, a key twice in one object, a limit passed. Asks
    // `stopped` every 64 KiB of text, and throws read_cancelled when it says so.
    json_document(std::string_view text, std::string_view source, const stop_test& stopped,
                  const json_limits& limits = {});

    json_value root() const { return {this, 0}; }

private:
    friend class json_value;
    friend class json_parser;
    struct node {
        std::string_view text; // a scalar's
        std::string_view key;  // as an object's member
        std::uint32_t end = 0; // the index after its last descendant
        std::uint32_t count = 0;
        json_value::kind kind = json_value::kind::null;
    };
    std::vector<node> m_nodes;         // in document order: a value, then its descendants
    std::deque<std::string> m_strings; // strings that had escapes, unescaped
};

} // namespace neuron::neff::detail
