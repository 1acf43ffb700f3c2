#include "fuse_operations.h"

#include "neuron/sysfs/fuse_server.h"

#include "neuron/sysfs/errors.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::sysfs {
namespace {

// The tree never changes shape, modes or sizes behind the kernel's back
// (setattr replies refresh the cache), so lookups and attributes can be
// cached for long; negative lookups too, as no node ever appears.
constexpr double cache_seconds = 86400.0;

constexpr unsigned default_poll_mask = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
constexpr unsigned changed_poll_mask = POLLERR | POLLPRI;

constexpr std::uint32_t sysfs_file_size = 4096;

fuse_server& server_of(fuse_req_t req) { return *static_cast<fuse_server*>(fuse_req_userdata(req)); }

} // namespace

struct fuse_server::open_file {
    node_id node = no_node;
    std::uint64_t seen = 0; // the event count the last read (or the open) saw
    bool has_snapshot = false;
    std::string snapshot;
    poll_watch watch;
};

struct fuse_server::node_override {
    std::uint32_t mode = 0;
    uid_t uid = 0;
    gid_t gid = 0;
    struct timespec atime {};
    struct timespec mtime {};
    struct timespec ctime {};
};

// The C callbacks: each one finds the server and answers at once.
struct fuse_server::handlers {
    template <typename F>
    static void guarded(fuse_req_t req, F&& f) {
        try {
            f(server_of(req));
        } catch (const std::exception& e) {
            fmt::print(stderr, "neuron-emu: sysfs request failed: {}\n", e.what());
            fuse_reply_err(req, EIO);
        }
    }

    static void init(void*, fuse_conn_info* conn) {
        conn->max_write = fuse_max_write; // what serve()'s buffer holds
        if (conn->capable & FUSE_CAP_CACHE_SYMLINKS) conn->want |= FUSE_CAP_CACHE_SYMLINKS;
        // `echo x > attr` opens with O_TRUNC; let it reach open() rather than a setattr.
        if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC) conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
    }

    static void lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
        guarded(req, [&](fuse_server& s) {
            fuse_entry_param e{};
            e.entry_timeout = cache_seconds;
            e.attr_timeout = cache_seconds;
            const auto id = s.m_tree.child(s.node_of(parent), name);
            if (id != no_node) {
                s.fill_stat(id, e.attr);
                e.ino = s.ino_of(id);
            }
            fuse_reply_entry(req, &e);
        });
    }

    static void getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
        guarded(req, [&](fuse_server& s) {
            struct stat st {};
            s.fill_stat(s.node_of(ino), st);
            fuse_reply_attr(req, &st, cache_seconds);
        });
    }

    static void setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info*) {
        guarded(req, [&](fuse_server& s) {
            const auto id = s.node_of(ino);
            struct stat current {};
            s.fill_stat(id, current);
            {
                std::lock_guard lock(s.m_override_mutex);
                auto& o = s.m_overrides[id];
                if (!o) {
                    o = std::make_unique<node_override>();
                    o->mode = current.st_mode & 07777;
                    o->atime = current.st_atim;
                    o->mtime = current.st_mtim;
                    o->ctime = current.st_ctim;
                }
                struct timespec now {};
                clock_gettime(CLOCK_REALTIME, &now);
                // kernfs keeps mode, owner and times; a truncate changes nothing.
                if (to_set & FUSE_SET_ATTR_MODE) o->mode = attr->st_mode & 07777;
                if (to_set & FUSE_SET_ATTR_UID) o->uid = attr->st_uid;
                if (to_set & FUSE_SET_ATTR_GID) o->gid = attr->st_gid;
                if (to_set & FUSE_SET_ATTR_ATIME) o->atime = attr->st_atim;
                if (to_set & FUSE_SET_ATTR_MTIME) o->mtime = attr->st_mtim;
                if (to_set & FUSE_SET_ATTR_ATIME_NOW) o->atime = now;
                if (to_set & FUSE_SET_ATTR_MTIME_NOW) o->mtime = now;
                o->ctime = now;
            }
            struct stat st {};
            s.fill_stat(id, st);
            fuse_reply_attr(req, &st, cache_seconds);
        });
    }

    static void readlink(fuse_req_t req, fuse_ino_t ino) {
        guarded(req, [&](fuse_server& s) {
            const auto& n = s.m_tree.at(s.node_of(ino));
            if (n.type != node_type::symlink) {
                fuse_reply_err(req, EINVAL);
                return;
            }
            fuse_reply_readlink(req, n.target.c_str());
        });
    }

    static void opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
        guarded(req, [&](fuse_server& s) {
            if (s.m_tree.at(s.node_of(ino)).type != node_type::directory) {
                fuse_reply_err(req, ENOTDIR);
                return;
            }
            fi->cache_readdir = 1; // directories never change
            fi->keep_cache = 1;
            fuse_reply_open(req, fi);
        });
    }

    static void readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info*) {
        guarded(req, [&](fuse_server& s) {
            const auto id = s.node_of(ino);
            const auto& dir = s.m_tree.at(id);
            const std::size_t count = dir.children.size() + 2;
            std::string buffer(size, '\0');
            std::size_t used = 0;
            for (auto i = static_cast<std::size_t>(off); i < count; ++i) {
                struct stat st {};
                std::string_view name;
                if (i < 2) {
                    name = i == 0 ? "." : "..";
                    st.st_ino = i == 0 ? s.ino_of(id) : (id == s.m_options.root ? FUSE_ROOT_ID : s.ino_of(dir.parent));
                    st.st_mode = S_IFDIR;
                } else {
                    const auto child = dir.children[i - 2];
                    s.fill_stat(child, st);
                    name = s.m_tree.at(child).name;
                }
                const std::string name_z(name);
                const auto need = fuse_add_direntry(req, buffer.data() + used, size - used, name_z.c_str(), &st,
                                                    static_cast<off_t>(i + 1));
                if (need > size - used) break;
                used += need;
            }
            fuse_reply_buf(req, buffer.data(), used);
        });
    }

    static void releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info*) { fuse_reply_err(req, 0); }

    static void open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
        guarded(req, [&](fuse_server& s) {
            const auto id = s.node_of(ino);
            const auto& n = s.m_tree.at(id);
            if (n.type == node_type::directory) {
                fuse_reply_err(req, EISDIR);
                return;
            }
            struct stat st {};
            s.fill_stat(id, st);
            const int access = fi->flags & O_ACCMODE;
            const bool wants_write = access == O_WRONLY || access == O_RDWR;
            const bool wants_read = access == O_RDONLY || access == O_RDWR;
            // kernfs_fop_open: no write bit at all, or no store, refuses
            // writing even to root; likewise for reading.
            if ((wants_write && ((st.st_mode & 0222) == 0 || !traits_of(n.attr.kind).has_store)) ||
                (wants_read && (st.st_mode & 0444) == 0)) {
                fuse_reply_err(req, EACCES);
                return;
            }
            auto file = std::make_unique<open_file>();
            file->node = id;
            file->seen = s.m_hub.event(id);
            file->watch.node = id;
            fi->fh = reinterpret_cast<std::uint64_t>(file.get());
            fi->direct_io = 1; // every read asks us: no stale page cache
            fi->keep_cache = 0;
            fi->noflush = 1; // kernfs has no flush: close(2) need not wait for a round trip
            auto* handle = file.get();
            s.m_open_files.emplace(handle, std::move(file));
            if (fuse_reply_open(req, fi) != 0) s.m_open_files.erase(handle); // the open was interrupted
        });
    }

    static void read(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info* fi) {
        guarded(req, [&](fuse_server& s) {
            auto& file = *reinterpret_cast<open_file*>(fi->fh);
            if (off == 0 || !file.has_snapshot) {
                // Like kernfs_seq_show: note the event count, then show.
                file.seen = s.m_hub.event(file.node);
                auto result = s.m_reader.read(s.m_tree.at(file.node).attr);
                if (result.error != 0) {
                    file.has_snapshot = false;
                    fuse_reply_err(req, result.error);
                    return;
                }
                file.snapshot = std::move(result.text);
                file.has_snapshot = true;
            }
            const auto offset = static_cast<std::size_t>(off);
            if (offset >= file.snapshot.size()) {
                fuse_reply_buf(req, nullptr, 0);
                return;
            }
            fuse_reply_buf(req, file.snapshot.data() + offset, std::min(size, file.snapshot.size() - offset));
        });
    }

    static void write(fuse_req_t req, fuse_ino_t, const char* buf, size_t size, off_t, fuse_file_info* fi) {
        guarded(req, [&](fuse_server& s) {
            const auto& file = *reinterpret_cast<open_file*>(fi->fh);
            const auto result = s.m_writer.store(s.m_tree.at(file.node).attr, std::string_view(buf, size));
            if (result.notify_self) s.m_hub.changed(file.node);
            if (result.error != 0) {
                fuse_reply_err(req, result.error);
                return;
            }
            fuse_reply_write(req, result.accepted);
        });
    }

    static void poll(fuse_req_t req, fuse_ino_t, fuse_file_info* fi, fuse_pollhandle* ph) {
        guarded(req, [&](fuse_server& s) {
            auto& file = *reinterpret_cast<open_file*>(fi->fh);
            if (ph != nullptr) s.m_hub.arm(file.watch, ph);
            unsigned revents = default_poll_mask;
            if (s.m_hub.event(file.node) != file.seen) revents |= changed_poll_mask;
            fuse_reply_poll(req, revents);
        });
    }

    static void release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
        auto& s = server_of(req);
        auto* file = reinterpret_cast<open_file*>(fi->fh);
        s.m_hub.forget(file->watch);
        s.m_open_files.erase(file);
        fuse_reply_err(req, 0);
    }

    static void fsync(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) { fuse_reply_err(req, 0); }

    static void statfs(fuse_req_t req, fuse_ino_t) {
        struct statvfs st {};
        st.f_bsize = sysfs_file_size;
        st.f_frsize = sysfs_file_size;
        st.f_namemax = 255;
        fuse_reply_statfs(req, &st);
    }

    // sysfs refuses to create, remove or rename anything.
    static void create(fuse_req_t req, fuse_ino_t, const char*, mode_t, fuse_file_info*) {
        fuse_reply_err(req, EACCES);
    }
    static void mknod(fuse_req_t req, fuse_ino_t, const char*, mode_t, dev_t) { fuse_reply_err(req, EPERM); }
    static void mkdir(fuse_req_t req, fuse_ino_t, const char*, mode_t) { fuse_reply_err(req, EPERM); }
    static void remove(fuse_req_t req, fuse_ino_t, const char*) { fuse_reply_err(req, EPERM); }
    static void symlink(fuse_req_t req, const char*, fuse_ino_t, const char*) { fuse_reply_err(req, EPERM); }
    static void link(fuse_req_t req, fuse_ino_t, fuse_ino_t, const char*) { fuse_reply_err(req, EPERM); }
    static void rename(fuse_req_t req, fuse_ino_t, const char*, fuse_ino_t, const char*, unsigned) {
        fuse_reply_err(req, EPERM);
    }

    static void getxattr(fuse_req_t req, fuse_ino_t, const char*, size_t) { fuse_reply_err(req, ENODATA); }
    static void listxattr(fuse_req_t req, fuse_ino_t, size_t size) {
        if (size == 0) {
            fuse_reply_xattr(req, 0);
        } else {
            fuse_reply_buf(req, nullptr, 0);
        }
    }
    static void setxattr(fuse_req_t req, fuse_ino_t, const char*, const char*, size_t, int) {
        fuse_reply_err(req, EOPNOTSUPP);
    }
    static void removexattr(fuse_req_t req, fuse_ino_t, const char*) { fuse_reply_err(req, EOPNOTSUPP); }

    static fuse_lowlevel_ops operations() {
        fuse_lowlevel_ops ops{};
        ops.init = init;
        ops.lookup = lookup;
        ops.getattr = getattr;
        ops.setattr = setattr;
        ops.readlink = readlink;
        ops.opendir = opendir;
        ops.readdir = readdir;
        ops.releasedir = releasedir;
        ops.open = open;
        ops.read = read;
        ops.write = write;
        ops.poll = poll;
        ops.release = release;
        ops.fsync = fsync;
        ops.fsyncdir = fsync;
        ops.statfs = statfs;
        ops.create = create;
        ops.mknod = mknod;
        ops.mkdir = mkdir;
        ops.unlink = remove;
        ops.rmdir = remove;
        ops.symlink = symlink;
        ops.link = link;
        ops.rename = rename;
        ops.getxattr = getxattr;
        ops.listxattr = listxattr;
        ops.setxattr = setxattr;
        ops.removexattr = removexattr;
        return ops;
    }
};

fuse_server::fuse_server(const sysfs_tree& tree, const attribute_reader& reader, attribute_writer& writer,
                         change_hub& hub, fuse_server_options options)
        : m_tree(tree), m_reader(reader), m_writer(writer), m_hub(hub), m_options(options),
          m_created(std::chrono::system_clock::now()) {
    m_ended_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_ended_fd < 0) throw mount_error(fmt::format("cannot create an eventfd: {}", std::strerror(errno)));
}

fuse_server::~fuse_server() {
    stop();
    close(m_ended_fd);
}

node_id fuse_server::node_of(unsigned long ino) const {
    const auto id = ino == FUSE_ROOT_ID ? m_options.root : static_cast<node_id>(ino);
    if (!m_tree.contains(id)) throw mount_error(fmt::format("the kernel asked for unknown inode {}", ino));
    return id;
}

unsigned long fuse_server::ino_of(node_id id) const { return id == m_options.root ? FUSE_ROOT_ID : id; }

void fuse_server::fill_stat(node_id id, struct stat& st) const {
    const auto& n = m_tree.at(id);
    st = {};
    st.st_ino = ino_of(id);
    st.st_blksize = sysfs_file_size;
    const auto created = std::chrono::duration_cast<std::chrono::nanoseconds>(m_created.time_since_epoch()).count();
    const struct timespec t {
        static_cast<time_t>(created / 1'000'000'000), static_cast<long>(created % 1'000'000'000)
    };
    st.st_atim = st.st_mtim = st.st_ctim = t;
    std::uint32_t mode = n.mode;
    switch (n.type) {
    case node_type::directory:
        st.st_nlink = 2 + n.subdirectories;
        st.st_mode = S_IFDIR;
        break;
    case node_type::attribute:
        st.st_nlink = 1;
        st.st_mode = S_IFREG;
        st.st_size = sysfs_file_size;
        break;
    case node_type::symlink:
        st.st_nlink = 1;
        st.st_mode = S_IFLNK;
        break;
    }
    std::lock_guard lock(m_override_mutex);
    if (const auto it = m_overrides.find(id); it != m_overrides.end()) {
        mode = it->second->mode;
        st.st_uid = it->second->uid;
        st.st_gid = it->second->gid;
        st.st_atim = it->second->atime;
        st.st_mtim = it->second->mtime;
        st.st_ctim = it->second->ctime;
    }
    st.st_mode |= mode;
}

void fuse_server::forget_open_files() {
    for (auto& [handle, file] : m_open_files) m_hub.forget(file->watch);
    m_open_files.clear();
}

fuse_lowlevel_ops fuse_server_operations() { return fuse_server::handlers::operations(); }

} // namespace neuron::sysfs
