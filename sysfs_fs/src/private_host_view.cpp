#include "neuron/sysfs/private_host_view.h"

#include "neuron/sysfs/char_major.h"
#include "neuron/sysfs/dmi_identity.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/tree_builder.h"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <vector>

namespace neuron::sysfs {
namespace {

[[noreturn]] void fail(std::string_view what, const std::string& path) {
    throw mount_error(fmt::format("run: cannot {} {}: {}", what, path, std::strerror(errno)));
}

void mount_or_fail(const char* source, const std::string& target, const char* type, unsigned long flags,
                   const char* data, std::string_view what) {
    if (::mount(source, target.c_str(), type, flags, data) != 0) fail(what, target);
}

void bind(const std::string& source, const std::string& target) {
    mount_or_fail(source.c_str(), target, nullptr, MS_BIND | MS_REC, nullptr, fmt::format("bind {} onto", source));
}

void create_empty_file(const std::string& path, mode_t mode) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) fail("create", path);
    ::close(fd);
}

void write_file(const std::string& path, const std::string& content) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
    if (fd < 0) fail("create", path);
    const bool ok = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
    ::close(fd);
    if (!ok) fail("write", path);
}

std::string link_target(const std::string& path) {
    std::vector<char> buffer(PATH_MAX);
    const auto n = ::readlink(path.c_str(), buffer.data(), buffer.size());
    if (n < 0) fail("read the link", path);
    return std::string(buffer.data(), static_cast<std::size_t>(n));
}

std::vector<std::string> entries_of(const std::string& dir) {
    std::vector<std::string> names;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) fail("list", dir);
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return names;
}

// Replaces `dir` with a tmpfs holding its current entries: directories and
// files are bound back from an aside copy of the original (so they stay the
// real ones), symlinks are recreated. New entries can then be added to `dir`
// without touching the host.
void overlay_directory(const std::string& dir, const std::string& aside) {
    if (::mkdir(aside.c_str(), 0755) != 0) fail("create", aside);
    bind(dir, aside);
    mount_or_fail("tmpfs", dir, "tmpfs", 0, "mode=755", "mount a tmpfs on");
    for (const auto& name : entries_of(aside)) {
        const auto original = aside + "/" + name;
        const auto replica = dir + "/" + name;
        struct stat st {};
        if (::lstat(original.c_str(), &st) != 0) fail("inspect", original);
        if (S_ISLNK(st.st_mode)) {
            if (::symlink(link_target(original).c_str(), replica.c_str()) != 0) fail("create the link", replica);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (::mkdir(replica.c_str(), st.st_mode & 07777) != 0) fail("create", replica);
        } else {
            create_empty_file(replica, st.st_mode & 07777);
        }
        bind(original, replica);
    }
}

// Shows the tree's `directory` (a path below /sys) at its place in /sys,
// over whatever the host has there; its parent is already an overlay.
void show_over_host(const std::string& tree_mount, std::string_view directory) {
    const auto target = fmt::format("/sys/{}", directory);
    if (::mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) fail("create", target);
    bind(fmt::format("{}/{}", tree_mount, directory), target);
}

void add_device_nodes(const layout& layout) {
    for (std::uint32_t d = 0; d < layout.instance().device_count; ++d) {
        const auto path = fmt::format("/dev/neuron{}", d);
        if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(layout.char_major(), d)) == 0) {
            ::chmod(path.c_str(), 0666); // mknod honours the umask
            continue;
        }
        if (errno != EPERM) fail("create the device node", path);
        create_empty_file(path, 0666); // no CAP_MKNOD: a placeholder tools can at least find
    }
}

} // namespace

void enter_private_mount_namespace() {
    if (::unshare(CLONE_NEWNS) != 0) {
        throw mount_error(fmt::format("run: cannot create a private mount namespace: {} (run needs root, or "
                                      "CAP_SYS_ADMIN)",
                                      std::strerror(errno)));
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
        throw mount_error(fmt::format("run: cannot make the mount namespace private: {}", std::strerror(errno)));
    }
}

scratch_directory::scratch_directory() {
    char name[] = "/tmp/neuron-emu-run.XXXXXX";
    if (::mkdtemp(name) == nullptr) fail("create a directory in", "/tmp");
    m_path = name;
    if (::mount("tmpfs", m_path.c_str(), "tmpfs", 0, "mode=700") != 0) {
        const int error = errno;
        ::rmdir(m_path.c_str());
        errno = error;
        fail("mount a tmpfs on", m_path);
    }
}

scratch_directory::~scratch_directory() {
    ::umount2(m_path.c_str(), MNT_DETACH);
    ::rmdir(m_path.c_str());
}

std::string scratch_directory::make_directory(const std::string& name) const {
    const auto path = m_path + "/" + name;
    if (::mkdir(path.c_str(), 0755) != 0) fail("create", path);
    return path;
}

void install_private_host_view(const std::string& tree_mount, const scratch_directory& scratch, const layout& layout) {
    const std::string devices = "/sys/devices/virtual";
    if (::access((devices + "/neuron_device").c_str(), F_OK) == 0) {
        throw mount_error("run: this host has the Neuron driver loaded (/sys/devices/virtual/neuron_device "
                          "exists); run the conformance suite against the real tree instead");
    }
    overlay_directory(devices, scratch.path() + "/real-virtual");
    const auto devices_dir = devices + "/neuron_device";
    if (::mkdir(devices_dir.c_str(), 0755) != 0) fail("create", devices_dir);
    bind(fmt::format("{}/{}", tree_mount, devices_path), devices_dir);
    // The instance's identity, not the host's (dmi_identity.h).
    show_over_host(tree_mount, "devices/virtual/dmi");

    overlay_directory("/sys/class", scratch.path() + "/real-class");
    const std::string class_dir = "/sys/class/neuron_device";
    if (::mkdir(class_dir.c_str(), 0755) != 0) fail("create", class_dir);
    bind(fmt::format("{}/{}", tree_mount, class_path), class_dir);
    show_over_host(tree_mount, dmi_class_path);

    overlay_directory("/sys/dev/char", scratch.path() + "/real-dev-char");
    for (std::uint32_t d = 0; d < layout.instance().device_count; ++d) {
        const auto link = fmt::format("/sys/dev/char/{}:{}", layout.char_major(), d);
        const auto target = fmt::format("../../devices/virtual/neuron_device/neuron{}", d);
        if (::symlink(target.c_str(), link.c_str()) != 0) fail("create the link", link);
    }

    overlay_directory("/dev", scratch.path() + "/real-dev");
    add_device_nodes(layout);

    const auto devices_file = scratch.path() + "/proc-devices";
    write_file(devices_file, proc_devices_with_neuron(read_proc_devices(), layout.char_major()));
    mount_or_fail(devices_file.c_str(), "/proc/devices", nullptr, MS_BIND, nullptr, "bind a copy onto");
}

void install_private_directory(const std::string& source, const std::string& target, const scratch_directory& scratch) {
    std::string existing = target;
    while (::access(existing.c_str(), F_OK) != 0) {
        const auto slash = existing.rfind('/');
        existing = slash == 0 ? "/" : existing.substr(0, slash);
    }
    if (existing != target) {
        if (existing == "/") throw mount_error(fmt::format("run: cannot place {}: / has no room for it", target));
        std::string aside = existing;
        for (auto& c : aside) {
            if (c == '/') c = '-';
        }
        overlay_directory(existing, scratch.path() + "/real" + aside);
        for (auto slash = target.find('/', existing.size() + 1);; slash = target.find('/', slash + 1)) {
            const auto dir = target.substr(0, slash);
            if (::mkdir(dir.c_str(), 0755) != 0) fail("create", dir);
            if (slash == std::string::npos) break;
        }
    }
    bind(source, target);
}

} // namespace neuron::sysfs
