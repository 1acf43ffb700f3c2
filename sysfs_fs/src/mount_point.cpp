#include "neuron/sysfs/mount_point.h"

#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/system_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
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

constexpr int max_symlinks = 40; // the kernel's limit on links followed in one lookup

std::string real_path(const std::string& path, const std::string& named) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
        const auto why = describe_errno(errno);
        throw mount_error(path == named ? fmt::format("cannot resolve {}: {}", named, why)
                                        : fmt::format("cannot resolve {}: {}: {}", named, path, why));
    }
    return resolved;
}

// The absolute path `path` names, its symlinks resolved, found without asking
// anything of a file system mounted at it: realpath() would stat the mount's
// root, which fails on a dead FUSE mount whose attributes are not cached.
std::string resolve_without_entering(const std::string& path) {
    std::string current = path;
    for (int links = 0; links <= max_symlinks; ++links) {
        while (current.size() > 1 && current.back() == '/') current.pop_back();
        const auto slash = current.rfind('/');
        const auto name = slash == std::string::npos ? current : current.substr(slash + 1);
        if (name.empty() || name == "." || name == "..") return real_path(current, path);
        const auto parent = slash == std::string::npos ? std::string(".")
                            : slash == 0               ? std::string("/")
                                                       : current.substr(0, slash);
        const auto directory = real_path(parent, path);
        const auto candidate = (directory == "/" ? "" : directory) + "/" + name;
        // lstat() of a mount point crosses into the mount; of a symlink it does not.
        struct stat st {};
        if (::lstat(candidate.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return candidate;
        char target[PATH_MAX];
        const auto length = ::readlink(candidate.c_str(), target, sizeof(target) - 1);
        if (length < 0) throw mount_error(fmt::format("cannot resolve {}: {}", path, describe_errno(errno)));
        target[length] = '\0';
        current = target[0] == '/' ? std::string(target) : directory + "/" + target;
    }
    throw mount_error(fmt::format("cannot resolve {}: {}", path, describe_errno(ELOOP)));
}

bool is_fuse(const std::string& fs_type) {
    return fs_type == "fuse" || fs_type == "fuseblk" || fs_type.starts_with("fuse.");
}

// Detaches what FUSE servers that died without unmounting left at `path`,
// top first. stat() cannot tell: FUSE answers it from cached attributes (a
// day, for our tree), so a dead mount looks alive once anything has looked at
// it. statfs() is never cached: it always reaches the server, and fails with
// ENOTCONN once the server's end of the connection is gone (ECONNABORTED when
// the connection was aborted through /sys/fs/fuse/connections). A live mount
// answers and is left alone, to be refused as busy.
void detach_dead_fuse_mounts(const std::string& path) {
    const auto table = mount_table();
    const auto stacked =
        std::count_if(table.begin(), table.end(), [&](const auto& m) { return m.mount_point == path; });
    for (std::ptrdiff_t i = 0; i < stacked; ++i) {
        const auto top = find_mount(path);
        if (!top || !is_fuse(top->fs_type)) return;
        struct statfs st {};
        if (sys().statfs(path.c_str(), &st) == 0) return;
        const int error = errno;
        if (error != ENOTCONN && error != ECONNABORTED) return;
        if (sys().umount2(path.c_str(), MNT_DETACH) != 0) {
            throw mount_error(
                fmt::format("{} is a stale FUSE mount and unmounting it failed: {}", path, describe_errno(errno)));
        }
    }
}

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
        while (in >> word && word != "-") {}
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
    const auto canonical = resolve_without_entering(path);
    detach_dead_fuse_mounts(canonical);
    struct stat st {};
    if (::stat(canonical.c_str(), &st) != 0) {
        const int error = errno;
        if (error != ENOENT) throw mount_error(fmt::format("cannot use {}: {}", path, describe_errno(error)));
        if (::mkdir(canonical.c_str(), 0755) != 0) {
            throw mount_error(fmt::format("cannot create mount point {}: {}", path, describe_errno(errno)));
        }
        created = true;
    } else if (!S_ISDIR(st.st_mode)) {
        throw mount_error(fmt::format("cannot mount on {}: not a directory", path));
    }
    if (const auto existing = find_mount(canonical)) {
        throw mount_error(
            fmt::format("cannot mount on {}: it is busy ({} is mounted there)", canonical, existing->fs_type));
    }
    return canonical;
}

mount_point::~mount_point() {
    if (m_created) ::rmdir(m_path.c_str());
}

} // namespace neuron::sysfs
