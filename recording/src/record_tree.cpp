#include "neuron/recording/tree_recording.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace neuron::recording {
namespace {

struct read_outcome {
    std::string text;
    int error = 0;
};

// One open and reads to the end (at most `limit` bytes), as cat does.
read_outcome read_value(const std::string& path, std::size_t limit) {
    read_outcome r;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        r.error = errno;
        return r;
    }
    char buffer[4096];
    for (;;) {
        const auto n = ::read(fd, buffer, std::min(sizeof buffer, limit - r.text.size()));
        if (n < 0) {
            if (errno == EINTR) continue;
            r.error = errno;
            break;
        }
        if (n == 0 || r.text.size() + static_cast<std::size_t>(n) >= limit) {
            r.text.append(buffer, static_cast<std::size_t>(n));
            break;
        }
        r.text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    if (r.error != 0) r.text.clear();
    return r;
}

std::vector<std::string> list(const std::string& dir) {
    const std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(dir.c_str()), ::closedir);
    if (!d) throw recording_error(fmt::format("cannot list {}: {}", common::printable(dir), std::strerror(errno)));
    std::vector<std::string> names;
    while (const auto* e = ::readdir(d.get())) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    return names; // record_tree sorts the entries once, by path_less
}

// "neuron" and digits: a device's directory.
bool is_device_directory_name(std::string_view name) {
    constexpr std::string_view prefix = "neuron";
    if (!name.starts_with(prefix) || name.size() == prefix.size()) return false;
    return std::all_of(name.begin() + prefix.size(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

class walker {
public:
    walker(const record_options& o, tree_recording& out) : m_options(o), m_out(out) {}

    // `relative` as it is on disk; `shown` as recorded (a name that is not
    // printable ASCII is recorded escaped, which no real driver's tree has).
    // A directory that cannot be listed (gone while walking) is recorded
    // without what it held.
    void walk(const std::string& relative, const std::string& shown) {
        const auto dir = relative.empty() ? m_options.root : m_options.root + "/" + relative;
        std::vector<std::string> names;
        try {
            names = list(dir);
        } catch (const recording_error&) {
            if (relative.empty()) throw;
            return;
        }
        for (const auto& name : names) {
            const auto real = relative.empty() ? name : relative + "/" + name;
            const auto printable_name = ascii(name);
            const auto path = shown.empty() ? printable_name : shown + "/" + printable_name;
            const auto full = m_options.root + "/" + real;
            struct stat st {};
            if (::lstat(full.c_str(), &st) != 0) continue; // gone while walking
            if (m_out.entries.size() == m_options.max_entries) {
                throw recording_error(fmt::format("{} has more than {} entries", common::printable(m_options.root),
                                                  m_options.max_entries));
            }
            tree_entry e;
            e.path = path;
            e.mode = st.st_mode & 07777;
            if (S_ISDIR(st.st_mode)) {
                e.type = entry_type::directory;
                m_out.entries.push_back(std::move(e));
                walk(real, path);
                continue;
            }
            if (S_ISLNK(st.st_mode)) {
                e.type = entry_type::link;
                std::string target(4096, '\0');
                const auto n = ::readlink(full.c_str(), target.data(), target.size());
                e.target = n < 0 ? std::string() : ascii(target.substr(0, static_cast<std::size_t>(n)));
                m_out.entries.push_back(std::move(e));
                continue;
            }
            // sysfs holds nothing else; a device node or a pipe is not read.
            if (!S_ISREG(st.st_mode)) continue;
            e.type = entry_type::file;
            auto r = read_value(full, m_options.max_value_bytes);
            e.value = std::move(r.text);
            e.read_error = r.error;
            e.counter = is_counter(path);
            m_out.entries.push_back(std::move(e));
        }
    }

private:
    const record_options& m_options;
    tree_recording& m_out;
};

// The identity directory's files (not its links or power/), each read once.
std::vector<tree_entry> record_identity(const std::string& dir) {
    std::vector<tree_entry> files;
    std::vector<std::string> names;
    try {
        names = list(dir);
    } catch (const recording_error&) {
        return files; // a machine without DMI, or a tree served without it
    }
    for (const auto& name : names) {
        const auto full = dir + "/" + name;
        struct stat st {};
        if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (files.size() == max_identity_files) {
            throw recording_error(fmt::format("{} has more than {} files", common::printable(dir), max_identity_files));
        }
        tree_entry e;
        e.path = ascii(name);
        e.mode = st.st_mode & 07777;
        auto r = read_value(full, max_identity_bytes);
        e.value = std::move(r.text);
        e.read_error = r.error;
        files.push_back(std::move(e));
    }
    std::sort(files.begin(), files.end(),
              [](const tree_entry& a, const tree_entry& b) { return path_less(a.path, b.path); });
    return files;
}

sample take_sample(const record_options& o, const tree_recording& r, std::uint64_t at_ns) {
    sample s;
    s.at_ns = at_ns;
    for (const auto& e : r.entries) {
        if (!e.counter) continue;
        // A counter's value is a number; anything else is kept escaped, as text.
        const auto text = read_value(o.root + "/" + e.path, o.max_value_bytes).text;
        s.values.push_back(is_text(text) ? text : ascii(text));
    }
    return s;
}

} // namespace

std::string_view type_name(entry_type t) {
    switch (t) {
    case entry_type::directory: return "directory";
    case entry_type::file: return "file";
    case entry_type::link: return "link";
    }
    return "file";
}

bool path_less(std::string_view a, std::string_view b) {
    const auto key = [](char c) { return c == '/' ? 0 : static_cast<int>(static_cast<unsigned char>(c)) + 1; };
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [&](char x, char y) { return key(x) < key(y); });
}

std::string ascii(std::string_view text) {
    std::string out;
    for (const unsigned char c : text) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c < 0x20 || c >= 0x7f) {
            out += fmt::format("\\x{:02x}", c);
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

bool is_text(std::string_view value) {
    return std::all_of(value.begin(), value.end(),
                       [](unsigned char c) { return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t'; });
}

bool is_counter(std::string_view path) {
    const auto below = [&](std::string_view directory) {
        return path.starts_with(directory) || path.find(fmt::format("/{}", directory)) != std::string_view::npos;
    };
    return below("stats/") || below("metrics/neuron_core");
}

tree_recording record_tree(const record_options& options) {
    tree_recording r;
    r.root = ascii(options.root);
    if (options.samples > max_samples) {
        throw recording_error(fmt::format("at most {} samples, not {}", max_samples, options.samples));
    }
    for (const auto& name : list(options.root)) {
        struct stat st {};
        const auto full = options.root + "/" + name;
        if (is_device_directory_name(name) && ::lstat(full.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) ++r.device_count;
    }
    if (r.device_count == 0) {
        throw recording_error(fmt::format("{} is not a Neuron driver's tree: it holds no neuronN device directory",
                                          common::printable(options.root)));
    }
    walker(options, r).walk("", "");
    // The walk goes in the order directories list; a recording is in path_less order.
    std::sort(r.entries.begin(), r.entries.end(),
              [](const tree_entry& a, const tree_entry& b) { return path_less(a.path, b.path); });
    if (const auto v = read_value(options.module_version, 256); v.error == 0) {
        r.driver_release = ascii(trimmed(v.text));
    }
    if (const auto t = read_value(options.root + "/neuron0/info/architecture/instance_type", 256); t.error == 0) {
        r.instance_type = ascii(trimmed(t.text));
    }
    r.identity = record_identity(options.identity_root.empty() ? options.root + "/../dmi/id" : options.identity_root);
    if (options.samples > 0) {
        r.interval_ns = static_cast<std::uint64_t>(options.interval.count());
        const auto start = std::chrono::steady_clock::now();
        for (std::uint32_t i = 0; i < options.samples; ++i) {
            // The host's own pace; a sample is stamped with its planned time, so replays are exact.
            if (i > 0) std::this_thread::sleep_until(start + i * options.interval);
            r.samples.push_back(take_sample(options, r, i * r.interval_ns));
        }
    }
    return r;
}

} // namespace neuron::recording
