#include "neuron/tools/ls_view.h"

#include "ls_devices.h"
#include "ls_table.h"

#include <fmt/format.h>

namespace neuron::tools {
namespace {

// A string as Go's encoding/json writes it: HTML-safe (<, >, & escaped),
// U+2028/U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
std::string go_string(std::string_view text) {
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size();) {
        const auto ch = static_cast<unsigned char>(text[i]);
        if (ch < 0x80) {
            switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') {
                    out += fmt::format("\\u00{:02x}", ch);
                } else {
                    out += static_cast<char>(ch);
                }
            }
            ++i;
            continue;
        }
        // The sequence's length by its lead byte; checked for continuation
        // bytes, overlong forms, surrogates and range.
        const std::size_t length = ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC2 ? 2 : 0;
        std::uint32_t code = length == 4 ? ch & 0x07U : length == 3 ? ch & 0x0FU : ch & 0x1FU;
        bool valid = length != 0 && ch <= 0xF4 && i + length <= text.size();
        for (std::size_t k = 1; valid && k < length; ++k) {
            const auto next = static_cast<unsigned char>(text[i + k]);
            valid = (next & 0xC0U) == 0x80U;
            code = (code << 6) | (next & 0x3FU);
        }
        valid = valid && !(length == 3 && (code < 0x800 || (code >= 0xD800 && code <= 0xDFFF))) &&
                !(length == 4 && (code < 0x10000 || code > 0x10FFFF));
        if (!valid) {
            out += "\\ufffd";
            ++i;
        } else if (code == 0x2028 || code == 0x2029) {
            out += fmt::format("\\u{:04x}", code);
            i += length;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out + "\"";
}

// Go's MarshalIndent with a four-space indent: one element per line, `[]`
// for an empty array.
class writer {
public:
    void open(char bracket) {
        m_out += bracket;
        ++m_depth;
        m_first = true;
    }
    void close(char bracket, bool empty) {
        --m_depth;
        if (!empty) newline();
        m_out += bracket;
        m_first = false;
    }
    void element() {
        if (!m_first) m_out += ',';
        newline();
        m_first = false;
    }
    writer& key(std::string_view name) {
        element();
        m_out += go_string(name) + ": ";
        m_first = true; // the value follows the key on its line
        return *this;
    }
    void raw(std::string_view text) {
        m_out += text;
        m_first = false;
    }
    void integers(const std::vector<std::uint32_t>& values) {
        open('[');
        for (const auto v : values) {
            element();
            raw(fmt::format("{}", v));
        }
        close(']', values.empty());
    }
    std::string take() { return std::move(m_out); }

private:
    void newline() { m_out += "\n" + std::string(4 * m_depth, ' '); }

    std::string m_out;
    int m_depth = 0;
    bool m_first = true;
};

// The -a table's cut; the docs' JSON example shows the command cut as well.
constexpr std::size_t command_limit = 40;

void write_process(writer& w, const detail::ls_process& p) {
    w.element();
    w.open('{');
    w.key("pid").raw(fmt::format("{}", p.pid));
    w.key("command").raw(go_string(detail::truncated(p.command, command_limit)));
    w.key("neuron_runtime_version").raw(go_string(p.runtime_version));
    w.close('}', false);
}

void write_device(writer& w, const host_sample& h, const device_sample& d) {
    w.element();
    w.open('{');
    w.key("neuron_device").raw(fmt::format("{}", d.index));
    w.key("bdf").raw(go_string(d.bdf));
    w.key("cpu_affinity").raw(go_string(d.cpu_affinity));
    w.key("numa_node").raw(go_string(d.numa_node));
    w.key("connected_to");
    if (d.connected.empty()) {
        w.raw("null"); // as Go writes a nil slice: one device has no links
    } else {
        w.integers(d.connected);
    }
    w.key("nc_count").raw(fmt::format("{}", logical_cores_of(h, d)));
    if (detail::shows_lnc(h)) w.key("logical_neuroncore_config").raw(fmt::format("{}", detail::lnc_of(h)));
    w.key("memory_size").raw(fmt::format("{}", d.memory_bytes));
    w.key("neuroncore_ids").integers(detail::core_ids(h, d));
    w.key("neuron_processes");
    const auto processes = detail::processes_on(h, d, false);
    w.open('[');
    for (const auto& p : processes) write_process(w, p);
    w.close(']', processes.empty());
    w.close('}', false);
}

} // namespace

std::string ls_json(const host_sample& h) {
    writer w;
    w.open('[');
    for (const auto& d : h.devices) write_device(w, h, d);
    w.close(']', h.devices.empty());
    return w.take();
}

} // namespace neuron::tools
