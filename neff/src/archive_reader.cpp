#include "archive_reader.h"

#include "neuron/neff/neff_file.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <utility>

namespace neuron::neff::detail {
namespace {

constexpr std::size_t block = 512;

// zlib's inflate, pulled from: read() gives the next n bytes of the
// decompressed stream.
class inflater {
public:
    inflater(std::string_view in, std::uint64_t limit, const stop_test& stopped, std::uint64_t* inflated)
            : m_in(in), m_limit(limit), m_stopped(stopped), m_inflated(inflated) {
        m_z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
        m_z.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), UINT32_MAX));
        m_rest = in.size() - m_z.avail_in;
        if (inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) throw neff_error("the payload: zlib could not start");
    }
    ~inflater() { inflateEnd(&m_z); }
    inflater(const inflater&) = delete;
    inflater& operator=(const inflater&) = delete;

    // Fills `n` bytes of `out` (or skips them when out is null); false at a
    // clean end of the stream before any of them.
    bool read(char* out, std::uint64_t n) {
        bool any = false;
        while (n > 0) {
            if (m_ended) {
                if (!any) return false;
                throw neff_error("the payload's tar is truncated: the gzip stream ends inside a member");
            }
            const auto got = step(out, n);
            any = any || got > 0;
            n -= got;
            if (out != nullptr) out += got;
        }
        return true;
    }

    // Inflates what follows the tar's end to the end of the gzip stream, so
    // that its checksum and length are checked, and refuses bytes after it.
    void finish() {
        while (!m_ended) step(nullptr, 65536);
        // Compilers pad the payload with zeros after the stream; anything else is not ours to ignore.
        const auto used = static_cast<std::size_t>(reinterpret_cast<const char*>(m_z.next_in) - m_in.data());
        const auto after = m_in.substr(used);
        if (std::any_of(after.begin(), after.end(), [](char c) { return c != '\0'; })) {
            throw neff_error("bytes other than padding follow the end of the payload's gzip stream");
        }
    }

private:
    // One call of inflate into `out` (scratch when null), of at most a
    // scratch buffer's worth, so that the stop test is asked often: the bytes it made.
    std::uint64_t step(char* out, std::uint64_t n) {
        if (m_stopped && m_stopped()) throw read_cancelled("reading the NEFF was stopped");
        const auto chunk = static_cast<uInt>(std::min<std::uint64_t>(n, m_scratch.size()));
        m_z.next_out = reinterpret_cast<Bytef*>(out != nullptr ? out : m_scratch.data());
        m_z.avail_out = chunk;
        if (m_z.avail_in == 0 && m_rest > 0) { // more than 4 GiB of input
            m_z.avail_in = static_cast<uInt>(std::min<std::size_t>(m_rest, UINT32_MAX));
            m_rest -= m_z.avail_in;
        }
        const int r = inflate(&m_z, Z_NO_FLUSH);
        const std::uint64_t got = chunk - m_z.avail_out;
        m_total += got;
        if (m_inflated != nullptr) *m_inflated = m_total;
        if (m_total > m_limit) throw neff_error(fmt::format("the payload inflates to more than {} bytes", m_limit));
        if (r == Z_STREAM_END) {
            m_ended = true;
        } else if (r == Z_BUF_ERROR && m_z.avail_in == 0 && m_rest == 0) {
            throw neff_error("the payload's gzip stream is truncated");
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
            throw neff_error(
                fmt::format("the payload's gzip stream is corrupt ({})", m_z.msg != nullptr ? m_z.msg : "zlib error"));
        }
        return got;
    }

    std::vector<char> m_scratch = std::vector<char>(65536);
    std::string_view m_in;
    z_stream m_z{};
    std::size_t m_rest = 0; // input not yet handed to zlib
    std::uint64_t m_limit;
    const stop_test& m_stopped;
    std::uint64_t* m_inflated;
    std::uint64_t m_total = 0;
    bool m_ended = false;
};

std::string field(const char* header, std::size_t offset, std::size_t size) {
    const auto* begin = header + offset;
    return std::string(begin, std::find(begin, begin + size, '\0'));
}

std::uint64_t octal(const char* header, std::size_t offset, std::size_t size, std::string_view what) {
    const auto text = field(header, offset, size);
    std::uint64_t v = 0;
    bool digits = false;
    for (const char c : text) {
        if (c == ' ' && !digits) continue;
        if (c == ' ') break;
        if (c < '0' || c > '7' || v > (UINT64_MAX >> 3)) {
            throw neff_error(
                fmt::format("the payload's tar has a bad {} field '{}'", what, common::printable(text, 20)));
        }
        v = v * 8 + static_cast<std::uint64_t>(c - '0');
        digits = true;
    }
    return v;
}

void check_sum(const char* header) {
    const auto want = octal(header, 148, 8, "checksum");
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < block; ++i) {
        sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(header[i]);
    }
    if (sum != want) throw neff_error("the payload's tar has a header whose checksum does not match (damaged)");
}

// "./sg00/def.json" -> "sg00/def.json"; refuses names that leave the archive.
std::string normalised(std::string name) {
    while (name.starts_with("./")) name.erase(0, 2);
    while (name.ends_with('/')) name.pop_back();
    const auto shown = common::printable(name, 200);
    if (name.empty()) throw neff_error("the payload's tar has a member without a name");
    if (name.starts_with('/'))
        throw neff_error(fmt::format("the payload's tar member '{}' has an absolute path", shown));
    std::size_t at = 0;
    while (at <= name.size()) {
        const auto end = std::min(name.find('/', at), name.size());
        if (name.substr(at, end - at) == "..") {
            throw neff_error(fmt::format("the payload's tar member '{}' leaves the archive (..)", shown));
        }
        at = end + 1;
    }
    return name;
}

// A pax extended header's records ("LEN key=value\n"): its path and size.
// `size` is UINT64_MAX when the records give none.
void read_pax(std::string_view records, std::string& path, std::uint64_t& size) {
    while (!records.empty()) {
        const auto space = records.find(' ');
        std::uint64_t length = 0;
        if (space == std::string_view::npos || space == 0) throw neff_error("the payload's tar has a bad pax record");
        for (const char c : records.substr(0, space)) {
            if (c < '0' || c > '9' || length > records.size())
                throw neff_error("the payload's tar has a bad pax record");
            length = length * 10 + static_cast<std::uint64_t>(c - '0');
        }
        if (length <= space + 1 || length > records.size() || records[length - 1] != '\n') {
            throw neff_error("the payload's tar has a bad pax record");
        }
        const auto record = records.substr(space + 1, length - space - 2);
        const auto eq = record.find('=');
        if (eq != std::string_view::npos) {
            const auto key = record.substr(0, eq);
            const auto value = record.substr(eq + 1);
            if (key == "path") path = std::string(value);
            if (key == "size") {
                std::uint64_t v = 0;
                if (value.empty() || value.size() > 19) throw neff_error("the payload's tar has a bad pax size");
                for (const char c : value) {
                    if (c < '0' || c > '9') throw neff_error("the payload's tar has a bad pax size");
                    v = v * 10 + static_cast<std::uint64_t>(c - '0');
                }
                size = v;
            }
        }
        records.remove_prefix(length);
    }
}

std::uint64_t padded(std::uint64_t size) { return (size + block - 1) / block * block; }

// A name twice: found by sorting, which needs no second copy of the names.
void refuse_twice(const std::vector<member>& all) {
    std::vector<const member*> sorted;
    sorted.reserve(all.size());
    for (const auto& m : all) sorted.push_back(&m);
    std::sort(sorted.begin(), sorted.end(), [](const member* a, const member* b) { return a->name < b->name; });
    const auto twice = std::adjacent_find(sorted.begin(), sorted.end(),
                                          [](const member* a, const member* b) { return a->name == b->name; });
    if (twice != sorted.end()) {
        throw neff_error(fmt::format("the payload's tar holds '{}' twice", common::printable((*twice)->name, 200)));
    }
}

} // namespace

std::vector<member> read_archive(std::string_view gzip_bytes, const std::function<bool(std::string_view)>& keep,
                                 const archive_limits& limits, const stop_test& stopped, read_work* work) {
    inflater in(gzip_bytes, limits.max_inflated_bytes, stopped, work != nullptr ? &work->inflated_bytes : nullptr);
    std::vector<member> out;
    std::uint64_t held = 0;
    const auto hold = [&](std::uint64_t bytes) {
        held += bytes;
        if (held > limits.max_held_bytes) {
            throw neff_error(fmt::format("what this loader keeps of the payload's tar (the JSON it reads, every "
                                         "member's name) passes {} bytes",
                                         limits.max_held_bytes));
        }
    };
    std::string next_path;                // from a pax header or a GNU long name
    std::uint64_t next_size = UINT64_MAX; // from a pax header; UINT64_MAX: none
    std::array<char, block> header{};
    for (;;) {
        if (!in.read(header.data(), block)) throw neff_error("the payload's tar has no end-of-archive block");
        if (std::all_of(header.begin(), header.end(), [](char c) { return c == '\0'; })) break;
        check_sum(header.data());
        const char type = header[156];
        const auto size = octal(header.data(), 124, 12, "size");
        if (type == 'x' || type == 'g' || type == 'L') {
            if (type == 'L' && size > limits.max_name_bytes + 1) { // the name and its NUL
                throw neff_error(fmt::format("the payload's tar has a GNU long name of {} bytes; names are at most {}",
                                             size, limits.max_name_bytes));
            }
            if (size > limits.max_extended_header_bytes) {
                throw neff_error(fmt::format("the payload's tar has a pax header of {} bytes; at most {}", size,
                                             limits.max_extended_header_bytes));
            }
            std::string data(size, '\0');
            if (size > 0 && !in.read(data.data(), size)) {
                throw neff_error("the payload's tar is truncated: the gzip stream ends inside a member");
            }
            in.read(nullptr, padded(size) - size);
            if (type == 'x') read_pax(data, next_path, next_size);
            if (type == 'L') next_path = std::string(data.c_str());
            continue;
        }
        std::string name = field(header.data(), 0, 100);
        if (std::string(header.data() + 257, 5) == "ustar") {
            const auto prefix = field(header.data(), 345, 155);
            if (!prefix.empty()) name = prefix + "/" + name;
        }
        if (!next_path.empty()) name = std::exchange(next_path, {});
        const auto member_size = next_size != UINT64_MAX ? next_size : size;
        next_size = UINT64_MAX;
        if (type == '5') continue; // a directory ("./" too): nothing to read
        if (name.size() > limits.max_name_bytes) {
            throw neff_error(fmt::format("the payload's tar has a member name of {} bytes; names are at most {}",
                                         name.size(), limits.max_name_bytes));
        }
        name = normalised(name);
        if (type != '0' && type != '\0' && type != '7') {
            throw neff_error(fmt::format("the payload's tar member '{}' is not a regular file (type '{}')",
                                         common::printable(name, 200), common::printable(std::string(1, type))));
        }
        if (out.size() == limits.max_members) {
            throw neff_error(fmt::format("the payload's tar has more than {} members", limits.max_members));
        }
        hold(name.size() + member_record_bytes);
        member m;
        m.name = name;
        m.size = member_size;
        if (keep(name)) {
            if (member_size > limits.max_kept_bytes) {
                throw neff_error(fmt::format("{}: {} bytes, more than the {} this loader reads",
                                             common::printable(name, 200), member_size, limits.max_kept_bytes));
            }
            hold(member_size);
            m.kept = true;
            m.data.resize(member_size);
            if (member_size > 0 && !in.read(m.data.data(), member_size)) {
                throw neff_error("the payload's tar is truncated: the gzip stream ends inside a member");
            }
            in.read(nullptr, padded(member_size) - member_size);
        } else if (member_size > 0 && !in.read(nullptr, padded(member_size))) {
            throw neff_error("the payload's tar is truncated: the gzip stream ends inside a member");
        }
        out.push_back(std::move(m));
    }
    refuse_twice(out);
    in.finish();
    return out;
}

} // namespace neuron::neff::detail
