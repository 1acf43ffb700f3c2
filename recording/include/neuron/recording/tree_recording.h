#pragma once

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// What a Neuron driver's sysfs tree is, captured by walking it without
// writing to it: structure, modes, link targets, every readable value and
// the errno of every failed read, and the host's identity (driver release,
// instance type, device count). A recording of a real host is what a
// driver validation compares against the emulator, or one release against
// another. No SystemC, FUSE or sockets: this builds on a bare host.
namespace neuron::recording {

class recording_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class entry_type : std::uint8_t { directory, file, link };
std::string_view type_name(entry_type t);

struct tree_entry {
    std::string path; // from the root, '/'-separated: "neuron0/core_count"
    entry_type type = entry_type::file;
    std::uint32_t mode = 0; // permission bits (07777)
    std::string target;     // a link's
    std::string value;      // a file's, when it read
    int read_error = 0;     // the errno of a file's failed read; 0 when it read
    bool counter = false;   // a value that changes on its own (is_counter)

    bool operator==(const tree_entry&) const = default;
};

// A sample's values in order, their texts end to end in one string: a
// recording of millions of sampled values costs about their bytes, not a
// string object each.
class sample_values {
public:
    sample_values() = default;
    sample_values(std::initializer_list<std::string_view> values);
    sample_values(const std::vector<std::string>& values); // NOLINT(google-explicit-constructor): a list of texts

    // Throws recording_error once the texts pass 4 GiB together.
    void push_back(std::string_view value);
    std::size_t size() const { return m_ends.size(); }
    bool empty() const { return m_ends.empty(); }
    std::string_view operator[](std::size_t i) const {
        const auto begin = i == 0 ? 0 : m_ends[i - 1];
        return std::string_view(m_text).substr(begin, m_ends[i] - begin);
    }
    std::string_view at(std::size_t i) const; // throws std::out_of_range past the end
    std::vector<std::string> to_vector() const;

    bool operator==(const sample_values&) const = default;

private:
    std::string m_text;
    std::vector<std::uint32_t> m_ends; // where each value's text ends
};

// Counter values over time: the n-th value is the n-th counter entry's.
struct sample {
    std::uint64_t at_ns = 0; // since the first sample
    sample_values values;
    bool operator==(const sample&) const = default;
};

struct tree_recording {
    std::string root;
    std::string driver_release; // empty: not readable
    std::string instance_type;  // empty: not readable
    std::uint32_t device_count = 0;
    std::vector<tree_entry> entries;  // sorted by path
    std::vector<tree_entry> identity; // the machine's DMI files (record_options::identity_root), sorted by name
    std::uint64_t interval_ns = 0;
    std::vector<sample> samples;

    bool operator==(const tree_recording&) const = default;
};

// The order of entries in a recording: component by component, so that
// everything below a directory follows it at once ("a", "a/c", "a-b").
bool path_less(std::string_view a, std::string_view b);

// Text as printable ASCII: other bytes as \xNN, a backslash as \\.
std::string ascii(std::string_view text);

// A value a recording keeps as it is: printable ASCII, newlines and tabs.
bool is_text(std::string_view value);

// A file whose value counts something (its readers compare it only when asked):
// any file below a `stats` directory, or below 2.7's `metrics/neuron_coreN`.
bool is_counter(std::string_view path);

// What a recording holds at most, as record writes it and every reader
// takes it (README "Limits").
inline constexpr std::uint32_t max_samples = 10'000;
inline constexpr std::size_t max_entries = 1'000'000;
inline constexpr std::size_t max_value_bytes = 64 * 1024; // a file's value, or a sampled one
inline constexpr std::size_t max_identity_files = 64;     // the kernel's DMI directory has about 25
inline constexpr std::size_t max_identity_bytes = 4096;   // one DMI file's value

struct record_options {
    std::string root = "/sys/devices/virtual/neuron_device";
    std::string module_version = "/sys/module/neuron/version"; // the driver release, if it reads
    // The machine's identity (instance type and id on EC2), if it lists:
    // empty means the DMI directory beside the root's, ROOT/../dmi/id.
    std::string identity_root;
    std::uint32_t samples = 0; // counter samples after the walk (at most max_samples)
    std::chrono::nanoseconds interval{std::chrono::seconds(1)};
    std::size_t max_value_bytes = recording::max_value_bytes; // read of one file
    std::size_t max_entries = recording::max_entries;
};

// Walks the tree at options.root. Throws recording_error when the root
// cannot be listed or is not a Neuron tree (no neuronN directory), or the
// tree has more than max_entries entries.
tree_recording record_tree(const record_options& options);

} // namespace neuron::recording
