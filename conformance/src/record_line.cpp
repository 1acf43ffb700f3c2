#include "record_line.h"

#include <cerrno>
#include <unistd.h>

namespace neuron::conformance {
namespace {

std::string escape(std::string_view text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        default: out += c;
        }
    }
    return out;
}

std::string unescape(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\' || i + 1 == text.size()) {
            out += text[i];
            continue;
        }
        const char c = text[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    }
    return out;
}

} // namespace

std::string record_line(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) line += (i == 0 ? "" : "\t") + escape(fields[i]);
    return line + '\n';
}

std::vector<std::string> record_fields(std::string_view line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const auto tab = line.find('\t', start);
        fields.push_back(
            unescape(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start)));
        if (tab == std::string_view::npos) return fields;
        start = tab + 1;
    }
}

bool send_record(int fd, const std::vector<std::string>& fields) {
    const auto line = record_line(fields);
    std::size_t done = 0;
    while (done < line.size()) {
        const auto n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

bool record_reader::next(std::vector<std::string>& fields) {
    const auto newline = m_pending.find('\n');
    if (newline == std::string::npos) return false;
    fields = record_fields(std::string_view(m_pending).substr(0, newline));
    m_pending.erase(0, newline + 1);
    return true;
}

} // namespace neuron::conformance
