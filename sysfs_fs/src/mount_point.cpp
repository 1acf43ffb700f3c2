#include "neuron/sysfs/mount_point.h"

#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/system_calls.h"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::sysfs {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& field) {
    std::string out;
    for (std::size_t i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size()) {
            const auto octal = field.substr(i + 1, 3);
            if (octal.size() == 3 && octal.find_first_not_of("01234567") == std::string::npos) {
                out += static_cast<char>(std::stoi(octal, nullptr, 8));
                i += 3;
                continue;
            }
        }
        out += field[i];
    }
    return out;
}

std::string describe_errno(int error) { return std::strerror(error); }

} // namespace

std::vector<mount_entry> mount_table() {
    std::ifstream mountinfo("/proc/self/mountinfo");
    std::vector<mount_entry> table;
    std::string line;
    while (std::getline(mountinfo, line)) {
        // id parent major:minor root mount_point options [optional...] - fstype source super_options
        std::istringstream in(line);
        std::string id, parent, devno, root, mount_point;
        in >> id >> parent >> devno >> root >> mount_point;
        std::string word;
        while (in >> word && word != "-") {
        }
        std::string fs_type;
        in >> fs_type;
        table.push_back({unescape(mount_point), fs_type});
    }
    return table;
}

std::optional<mount_entry> find_mount(const std::string& path) {
    std::optional<mount_entry> found;
    for (auto& entry : mount_table()) {
        if (entry.mount_point == path) found = std::move(entry);
    }
    return found;
}

std::vector<std::string> mounts_at_or_below(const std::string& dir) {
    std::vector<std::string> found;
    for (const auto& entry : mount_table()) {
        if (entry.mount_point == dir || entry.mount_point.starts_with(dir + "/")) found.push_back(entry.mount_point);
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    return found;
}

std::string prepare_mount_point(const std::string& path, bool& created) {
    created = false;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int error = errno;
        if (error == ENOTCONN) {
            // A FUSE server died without unmounting; detach what it left.
            if (sys().umount2(path.c_str(), MNT_DETACH) != 0) {
                throw mount_error(fmt::format("{} is a stale FUSE mount and unmounting it failed: {}", path,
                                              describe_errno(errno)));
            }
            return prepare_mount_point(path, created);
        }
        if (error != ENOENT) throw mount_error(fmt::format("cannot use {}: {}", path, describe_errno(error)));
        if (::mkdir(path.c_str(), 0755) != 0) {
            throw mount_error(fmt::format("cannot create mount point {}: {}", path, describe_errno(errno)));
        }
        created = true;
    } else if (!S_ISDIR(st.st_mode)) {
        throw mount_error(fmt::format("cannot mount on {}: not a directory", path));
    }
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
        throw mount_error(fmt::format("cannot resolve {}: {}", path, describe_errno(errno)));
    }
    const std::string canonical = resolved;
    if (const auto existing = find_mount(canonical)) {
        throw mount_error(fmt::format("cannot mount on {}: it is busy ({} is mounted there)", canonical,
                                      existing->fs_type));
    }
    return canonical;
}

mount_point::~mount_point() {
    if (m_created) ::rmdir(m_path.c_str());
}

} // namespace neuron::sysfs
