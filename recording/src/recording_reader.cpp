// read_recording: the YAML file streamed through yaml-cpp's event parser
// into a tree_recording, without a node per value. A recording of a large
// host with many samples is millions of scalars; as yaml-cpp nodes they took
// some 30 bytes of memory per byte of file and most of a minute, here the
// time and memory go with the bytes read. Every refusal names where it is
// ("source:line:column: what is wrong"), the first in the file's order.

#include "neuron/recording/recording_file.h"

#include "neuron/common/posix_names.h"
#include "neuron/common/printable.h"
#include "neuron/common/yaml_fields.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <istream>
#include <optional>
#include <streambuf>
#include <vector>

namespace neuron::recording {
namespace {

// A sampled value is a read of at most max_value_bytes, escaped (\xNN) when
// it is not text.
constexpr std::size_t max_sampled_value_bytes = 4 * max_value_bytes;

// As a file system takes them (NAME_MAX, PATH_MAX): what a tree can hold.
constexpr std::size_t max_name_bytes = 255;
constexpr std::size_t max_path_bytes = 4096;

// The text as an input stream, without a copy.
class text_buffer : public std::streambuf {
public:
    explicit text_buffer(std::string_view text) {
        auto* begin = const_cast<char*>(text.data()); // only read
        setg(begin, begin, begin + text.size());
    }
};

// An errno as errno_name writes it: "EACCES", or "errno 524" for one without a name here.
std::optional<int> errno_of(const std::string& text) {
    if (const auto named = common::errno_from_name(text)) return named;
    constexpr std::string_view prefix = "errno ";
    if (!text.starts_with(prefix)) return std::nullopt;
    int n = 0;
    const auto digits = std::string_view(text).substr(prefix.size());
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return n;
}

// Names in a tree (paths, link targets, identity strings) are printable ASCII.
bool printable_name(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

bool well_formed_path(std::string_view path) {
    if (path.empty() || path.size() > max_path_bytes) return false;
    for (std::size_t start = 0; start <= path.size();) {
        const auto slash = std::min(path.find('/', start), path.size());
        const auto name = path.substr(start, slash - start);
        if (name.empty() || name.size() > max_name_bytes || name == "." || name == "..") return false;
        start = slash + 1;
    }
    return true;
}

// A node as an event announces it.
enum class kind { scalar, nothing, list, map };

std::string_view kind_name(kind k) {
    switch (k) {
    case kind::scalar: return "a scalar";
    case kind::nothing: return "nothing";
    case kind::list: return "a list";
    case kind::map: return "a map";
    }
    return "a scalar";
}

// A scalar value and where it stands.
struct scalar {
    std::string text;
    YAML::Mark mark;
};

// The keys of each map a recording has, in the order its reader checks them.
constexpr std::array<std::string_view, 8> recording_keys{
    "neuron_tree_recording", "root",    "driver_release", "instance_type",
    "device_count",          "entries", "samples",        "identity"};
constexpr std::array<std::string_view, 8> entry_keys{"path",  "type",      "mode",  "target",
                                                     "value", "value_hex", "error", "counter"};
constexpr std::array<std::string_view, 2> samples_keys{"interval_ns", "taken"};
constexpr std::array<std::string_view, 2> sample_keys{"at_ns", "values"};
enum recording_key {
    version_key,
    root_key,
    release_key,
    instance_key,
    count_key,
    entries_key,
    samples_key,
    identity_key
};
enum entry_key { path_key, type_key, mode_key, target_key, value_key, hex_key, error_key, counter_key };
enum samples_key_index { interval_key, taken_key };
enum sample_key { at_key, values_key };

// What is being read: each map and list of the recording's shape.
enum class place { document, recording, entries, entry, identity, identity_file, samples, taken, sample, values };

struct frame {
    place where;
    YAML::Mark mark;
    std::span<const std::string_view> keys; // a map's
    std::string_view context;               // a map's, for messages
    std::optional<std::size_t> key;         // a map's current key, while its value is awaited
    YAML::Mark key_mark;
    std::array<std::optional<YAML::Mark>, 8> seen{}; // a map's keys given so far
    std::array<std::optional<scalar>, 8> scalars{};  // a map's scalar values
};

class reader final : public YAML::EventHandler {
public:
    explicit reader(const std::string& source) : m_fields(source) {}

    tree_recording read(std::string_view text) {
        text_buffer buffer(text);
        std::istream in(&buffer);
        try {
            YAML::Parser parser(in);
            // The second call returns at once unless a second document starts, which is refused.
            if (parser.HandleNextDocument(*this)) parser.HandleNextDocument(*this);
        } catch (const YAML::Exception& e) {
            m_fields.fail(e.mark, common::printable_message(e.msg));
        }
        if (!m_read) m_fields.fail(YAML::Mark(), "a recording must be a map, not nothing");
        check_sample_counts();
        return std::move(m_recording);
    }

    void OnDocumentStart(const YAML::Mark& mark) override {
        if (m_documents++ > 0) m_fields.fail(mark, "a second document is not allowed (a file holds one YAML document)");
        m_stack.push_back({place::document, mark, {}, {}, {}, {}, {}, {}});
    }
    void OnDocumentEnd() override { m_stack.clear(); }

    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(kind::nothing, mark, ""); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string& value) override {
        node(kind::scalar, mark, value);
    }
    // An alias could repeat a value of 64 KiB millions of times: record
    // writes none, and a recording may have none.
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        m_fields.fail(mark, "a recording has no aliases (*name): write the value out");
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        node(kind::list, mark, "");
    }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        node(kind::map, mark, "");
    }
    void OnSequenceEnd() override { close(); }
    void OnMapEnd() override { close(); }

private:
    [[noreturn]] void wrong(const YAML::Mark& mark, std::string_view what, std::string_view wanted, kind k) const {
        m_fields.fail(mark, fmt::format("{} must be {}, not {}", what, wanted, kind_name(k)));
    }

    void open(place where, const YAML::Mark& mark, std::span<const std::string_view> keys = {},
              std::string_view context = {}) {
        m_stack.push_back({where, mark, keys, context, {}, {}, {}, {}});
    }

    // A node where the innermost open map or list has its next one.
    void node(kind k, const YAML::Mark& mark, const std::string& text) {
        auto& top = m_stack.back();
        switch (top.where) {
        case place::document:
            if (k != kind::map) wrong(mark, "a recording", "a map", k);
            return open(place::recording, mark, recording_keys, "a recording");
        case place::entries:
            if (k != kind::map) wrong(mark, "an entry", "a map", k);
            if (m_recording.entries.size() == max_entries) {
                m_fields.fail(mark, fmt::format("more than {} entries; a recording holds at most that", max_entries));
            }
            return open(place::entry, mark, entry_keys, "an entry");
        case place::identity:
            if (k != kind::map) wrong(mark, "an identity file", "a map", k);
            if (m_recording.identity.size() == max_identity_files) {
                m_fields.fail(mark, fmt::format("more than {} identity files; a recording holds at most that",
                                                max_identity_files));
            }
            return open(place::identity_file, mark, entry_keys, "an identity file");
        case place::taken:
            if (k != kind::map) wrong(mark, "a sample", "a map", k);
            if (m_recording.samples.size() == max_samples) {
                m_fields.fail(mark, fmt::format("more than {} samples; a recording holds at most that", max_samples));
            }
            m_recording.samples.emplace_back();
            return open(place::sample, mark, sample_keys, "a sample");
        case place::values: return sampled_value(k, mark, text);
        case place::recording:
        case place::entry:
        case place::identity_file:
        case place::samples:
        case place::sample: return in_map(top, k, mark, text);
        }
    }

    void in_map(frame& map, kind k, const YAML::Mark& mark, const std::string& text) {
        if (!map.key) {
            if (k == kind::list || k == kind::map) wrong(mark, "a key", "text", k);
            m_fields.check_key(text, mark, map.keys, map.context);
            const auto index =
                static_cast<std::size_t>(std::find(map.keys.begin(), map.keys.end(), text) - map.keys.begin());
            if (const auto& first = map.seen[index]) {
                m_fields.fail(mark, fmt::format("key '{}' is given twice (first at line {})", common::printable(text),
                                                first->line + 1));
            }
            map.seen[index] = mark;
            map.key = index;
            map.key_mark = mark;
            return;
        }
        const auto key = *map.key;
        map.key.reset();
        const auto name = map.keys[key];
        // An empty value has no position of its own: its key's stands in.
        const auto& at = k == kind::nothing ? map.key_mark : mark;
        if (map.where == place::recording && key == entries_key) {
            if (k != kind::list) wrong(at, "entries", "a list", k);
            return open(place::entries, mark);
        }
        if (map.where == place::recording && key == identity_key) {
            if (k != kind::list) wrong(at, "identity", "a list", k);
            return open(place::identity, mark);
        }
        if (map.where == place::recording && key == samples_key) {
            if (k != kind::map) wrong(at, "samples", "a map", k);
            return open(place::samples, mark, samples_keys, "samples");
        }
        if (map.where == place::samples && key == taken_key) {
            if (k != kind::list) wrong(at, "taken", "a list", k);
            return open(place::taken, mark);
        }
        if (map.where == place::sample && key == values_key) {
            if (k != kind::list) wrong(at, "values", "a list", k);
            m_values_marks.push_back(mark);
            return open(place::values, mark);
        }
        if (k != kind::scalar) wrong(at, name, "text", k);
        map.scalars[key] = scalar{text, mark};
        if (map.where == place::recording && key == version_key) check_version(map.scalars[key].value());
    }

    void sampled_value(kind k, const YAML::Mark& mark, const std::string& text) {
        if (k != kind::scalar) wrong(mark, "a value", "text", k);
        if (!is_text(text)) m_fields.fail(mark, "a sampled value is text (printable ASCII, newlines and tabs)");
        if (text.size() > max_sampled_value_bytes) {
            m_fields.fail(mark, fmt::format("a sampled value is at most {} bytes", max_sampled_value_bytes));
        }
        m_recording.samples.back().values.push_back(text);
    }

    // The end of the innermost map or list: a map's required keys, and what it makes.
    void close() {
        auto top = std::move(m_stack.back());
        m_stack.pop_back();
        switch (top.where) {
        case place::recording: return finish_recording(top);
        case place::entry: return add_entry(finish_entry(top, m_recording.entries));
        case place::identity_file: return m_recording.identity.push_back(finish_identity_file(top));
        case place::samples: return finish_samples(top);
        case place::sample: return finish_sample(top);
        default: return;
        }
    }

    const scalar& required(const frame& map, std::size_t key) const {
        if (!map.seen[key]) m_fields.fail(map.mark, fmt::format("{} needs '{}'", map.context, map.keys[key]));
        return *map.scalars[key];
    }
    bool given(const frame& map, std::size_t key) const { return map.seen[key].has_value(); }

    std::string name(const scalar& s, std::string_view what) const {
        if (!printable_name(s.text)) m_fields.fail(s.mark, fmt::format("{} is printable ASCII", what));
        return s.text;
    }

    void check_version(const scalar& s) const {
        if (m_fields.unsigned_number(s.text, s.mark, "neuron_tree_recording") != recording_format_version) {
            m_fields.fail(s.mark, fmt::format("a recording of format {} (this reads format {})",
                                              common::printable(s.text, 40), recording_format_version));
        }
    }

    void finish_recording(const frame& map) {
        required(map, version_key);
        m_recording.root = name(required(map, root_key), "root");
        if (given(map, release_key)) m_recording.driver_release = name(*map.scalars[release_key], "driver_release");
        if (given(map, instance_key)) m_recording.instance_type = name(*map.scalars[instance_key], "instance_type");
        const auto& count = required(map, count_key);
        m_recording.device_count =
            static_cast<std::uint32_t>(m_fields.unsigned_number(count.text, count.mark, "device_count", 4096));
        if (!given(map, entries_key)) m_fields.fail(map.mark, "a recording needs 'entries'");
        m_read = true;
    }

    // An identity file is an entry of the DMI directory itself: a file, by name.
    tree_entry finish_identity_file(const frame& map) {
        auto e = finish_entry(map, m_recording.identity);
        const auto& at = map.scalars[path_key]->mark;
        if (e.type != entry_type::file) m_fields.fail(at, "an identity entry is a file");
        if (e.path.find('/') != std::string::npos) m_fields.fail(at, "an identity file is named without a '/'");
        if (e.counter) m_fields.fail(map.scalars[counter_key]->mark, "an identity file is not a counter");
        if (e.value.size() > max_identity_bytes) {
            m_fields.fail(at, fmt::format("an identity file's value is at most {} bytes", max_identity_bytes));
        }
        return e;
    }

    tree_entry finish_entry(const frame& map, const std::vector<tree_entry>& before) {
        const auto fail = [&](const YAML::Mark& mark, std::string_view message) { m_fields.fail(mark, message); };
        tree_entry e;
        const auto& path = required(map, path_key);
        e.path = name(path, "path");
        if (!well_formed_path(e.path)) {
            fail(path.mark, fmt::format("a path is relative to the root and stays in it: names of 1 to {} "
                                        "characters, never '.' or '..', joined by single '/', {} at most",
                                        max_name_bytes, max_path_bytes));
        }
        const auto* previous = before.empty() ? nullptr : &before.back();
        if (previous != nullptr && !path_less(previous->path, e.path)) {
            fail(path.mark,
                 fmt::format("'{}' comes after '{}': entries are sorted by path, each once", e.path, previous->path));
        }
        const auto& type = required(map, type_key);
        constexpr std::array types{entry_type::directory, entry_type::file, entry_type::link};
        const auto found =
            std::find_if(types.begin(), types.end(), [&](entry_type t) { return type_name(t) == type.text; });
        if (found == types.end()) fail(type.mark, "type is directory, file or link");
        e.type = *found;
        const auto& mode = required(map, mode_key);
        if (mode.text.empty() || mode.text.size() > 5 || mode.text.find_first_not_of("01234567") != std::string::npos) {
            fail(mode.mark, "mode is octal permission bits, such as \"0444\"");
        }
        std::uint32_t bits = 0;
        for (const char c : mode.text) bits = bits * 8 + static_cast<std::uint32_t>(c - '0');
        if (bits > 07777) fail(mode.mark, "mode is octal permission bits, such as \"0444\"");
        e.mode = bits;
        const auto only_for = [&](entry_key key, entry_type t) {
            if (given(map, key) && e.type != t) {
                fail(map.scalars[key]->mark, fmt::format("a {} has no {}", type_name(e.type), entry_keys[key]));
            }
        };
        only_for(target_key, entry_type::link);
        only_for(value_key, entry_type::file);
        only_for(hex_key, entry_type::file);
        only_for(error_key, entry_type::file);
        only_for(counter_key, entry_type::file);
        if (e.type == entry_type::link) {
            if (!given(map, target_key)) fail(map.mark, "a link needs 'target'");
            e.target = name(*map.scalars[target_key], "target");
        }
        if (given(map, value_key) && given(map, hex_key)) fail(map.mark, "an entry has value or value_hex, not both");
        if (given(map, value_key)) e.value = map.scalars[value_key]->text;
        if (given(map, hex_key)) e.value = unhex(*map.scalars[hex_key]);
        const auto value_mark = given(map, value_key) ? map.scalars[value_key]->mark
                                : given(map, hex_key) ? map.scalars[hex_key]->mark
                                                      : map.mark;
        if (e.value.size() > max_value_bytes)
            fail(value_mark, fmt::format("a value is at most {} bytes", max_value_bytes));
        if (given(map, error_key)) {
            const auto& err = *map.scalars[error_key];
            const auto code = errno_of(err.text);
            if (!code || *code <= 0) fail(err.mark, "error is an errno name, such as EACCES, or \"errno N\"");
            if (given(map, value_key) || given(map, hex_key)) fail(err.mark, "a file whose read failed has no value");
            e.read_error = *code;
        }
        if (given(map, counter_key)) {
            const auto& c = *map.scalars[counter_key];
            e.counter = m_fields.boolean(c.text, c.mark, "counter");
        }
        return e;
    }

    void add_entry(tree_entry e) {
        m_counters += e.counter ? 1 : 0;
        m_recording.entries.push_back(std::move(e));
    }

    std::string unhex(const scalar& s) const {
        const auto& text = s.text;
        if (text.size() % 2 != 0 || text.find_first_not_of("0123456789abcdef") != std::string::npos) {
            m_fields.fail(s.mark, "value_hex is pairs of lowercase hex digits");
        }
        const auto digit = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
        std::string out;
        out.reserve(text.size() / 2);
        for (std::size_t i = 0; i < text.size(); i += 2)
            out += static_cast<char>(digit(text[i]) * 16 + digit(text[i + 1]));
        return out;
    }

    void finish_samples(const frame& map) {
        const auto& interval = required(map, interval_key);
        m_recording.interval_ns = m_fields.unsigned_number(interval.text, interval.mark, "interval_ns");
        if (!given(map, taken_key)) m_fields.fail(map.mark, "samples needs 'taken'");
    }

    void finish_sample(const frame& map) {
        const auto& at = required(map, at_key);
        auto& s = m_recording.samples.back();
        s.at_ns = m_fields.unsigned_number(at.text, at.mark, "at_ns");
        if (m_recording.samples.size() > 1 && s.at_ns < m_recording.samples[m_recording.samples.size() - 2].at_ns) {
            m_fields.fail(at.mark, "samples come in time order");
        }
        if (!given(map, values_key)) m_fields.fail(map.mark, "a sample needs 'values'");
    }

    // Each sample has a value per counter entry: known once the whole file is read.
    void check_sample_counts() const {
        for (std::size_t n = 0; n < m_recording.samples.size(); ++n) {
            const auto values = m_recording.samples[n].values.size();
            if (values != m_counters) {
                m_fields.fail(m_values_marks[n],
                              fmt::format("{} values; the recording has {} counters", values, m_counters));
            }
        }
    }

    common::yaml_fields m_fields;
    tree_recording m_recording;
    std::vector<frame> m_stack;
    std::vector<YAML::Mark> m_values_marks; // each sample's list of values
    std::size_t m_counters = 0;
    int m_documents = 0;
    bool m_read = false;
};

} // namespace

tree_recording read_recording(std::string_view text, const std::string& source) { return reader(source).read(text); }

} // namespace neuron::recording
