// The fetch JSON, written by hand (the shim links only the standard library).

#include "sys_trace_event.h"

#include "neuron/runtime_api/nrt_status_table.h"

#include <charconv>

namespace neuron::shim::sys_trace {
namespace {

// Bytes of the valid UTF-8 sequence at text[i]; 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) return 1;
    std::size_t n = 0;
    std::uint32_t code = 0;
    std::uint32_t least = 0;
    if ((lead & 0xE0) == 0xC0) {
        n = 2, code = lead & 0x1F, least = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        n = 3, code = lead & 0x0F, least = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        n = 4, code = lead & 0x07, least = 0x10000;
    } else {
        return 0;
    }
    if (i + n > text.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0) != 0x80) return 0;
        code = (code << 6) | (next & 0x3F);
    }
    const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
    return code < least || code > 0x10FFFF || surrogate ? 0 : n;
}

// A JSON string; bytes that are not UTF-8 become U+FFFD.
void append_string(std::string& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const auto n = utf8_length(text, i);
        if (n == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (c == '"' || c == '\\')
            out += '\\', out += static_cast<char>(c);
        else if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else if (c == '\r')
            out += "\\r";
        else if (c < 0x20)
            out += "\\u00", out += hex[c >> 4], out += hex[c & 0xF];
        else
            out.append(text.substr(i, n));
        i += n;
    }
    out += '"';
}

void append_number(std::string& out, std::uint64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
    out.append(digits, end);
}

void append_key(std::string& out, std::string_view key) {
    if (out.back() != '{') out += ',';
    append_string(out, key);
    out += ':';
}

template <typename T>
void append_field(std::string& out, std::string_view key, const std::optional<T>& value) {
    if (!value) return;
    append_key(out, key);
    append_number(out, *value);
}

const char* phase_name(phase when) {
    switch (when) {
    case phase::start: return "start";
    case phase::stop: return "stop";
    case phase::instant: return "instant";
    }
    return "instant";
}

bool is_tensor_event(event_type type) {
    switch (type) {
    case event_type::nrt_tensor_read:
    case event_type::nrt_tensor_write:
    case event_type::nrt_tensor_copy:
    case event_type::nrta_tensor_read:
    case event_type::nrta_tensor_write:
    case event_type::nrta_tensor_copy: return true;
    default: return false;
    }
}

void append_data(std::string& out, const event& e) {
    out += '{';
    append_field(out, "nc_idx", std::optional<std::uint64_t>(e.nc_idx));
    if (!e.name.empty()) {
        append_key(out, is_tensor_event(e.type) ? "tensor_name" : "model_name");
        append_string(out, e.name);
    }
    append_field(out, "model_id", e.model_id);
    append_field(out, "exec_id", e.exec_id);
    append_field(out, "nc_timestamp_ns", e.nc_timestamp_ns);
    append_field(out, "cpu_timestamp_ns", e.cpu_timestamp_ns);
    append_field(out, "status", e.status);
    if (e.status) {
        const auto row = runtime_api::nrt_status_of(*e.status);
        append_key(out, "status_name");
        append_string(out, row ? row->name : "UNKNOWN");
    }
    out += '}';
}

void append_event(std::string& out, const event& e) {
    out += '{';
    append_field(out, "id", std::optional(e.id));
    append_key(out, "event_type");
    append_string(out, name_of(e.type));
    append_key(out, "phase");
    append_string(out, phase_name(e.when));
    append_field(out, "tracking_id", std::optional(e.tracking_id));
    append_field(out, "nc_idx", std::optional<std::uint64_t>(e.nc_idx));
    append_field(out, "thread_id", std::optional(e.thread_id));
    append_field(out, "timestamp_ns", std::optional(e.timestamp_ns));
    if (e.seq != 0) append_field(out, "nrta_seq_id", std::optional(e.seq));
    append_key(out, "data");
    append_data(out, e);
    out += '}';
}

} // namespace

std::string to_json(const std::vector<event>& events) {
    std::string out = "{\"data_version\":2,\"events\":[";
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (i > 0) out += ',';
        append_event(out, events[i]);
    }
    out += "]}";
    return out;
}

} // namespace neuron::shim::sys_trace
