#define FUSE_USE_VERSION 34
#include "support/floor_fs.h"

#include <fuse_lowlevel.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::bench {

struct floor_fs::state {
    std::atomic<std::uint64_t> counter{0};
    std::atomic<std::uint64_t> events{0};
    std::mutex mutex;
    std::vector<fuse_pollhandle*> pollers; // waiting for the next change
};

namespace {

constexpr fuse_ino_t counter_ino = 2;
constexpr double timeout = 86400.0;

struct open_file {
    std::uint64_t seen = 0;
    std::string snapshot;
};

floor_fs::state& state_of(fuse_req_t req) { return *static_cast<floor_fs::state*>(fuse_req_userdata(req)); }

void fill(fuse_ino_t ino, struct stat& st) {
    st = {};
    st.st_ino = ino;
    if (ino == FUSE_ROOT_ID) {
        st.st_mode = S_IFDIR | 0755;
        st.st_nlink = 2;
    } else {
        st.st_mode = S_IFREG | 0644;
        st.st_nlink = 1;
        st.st_size = 4096;
    }
}

void on_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
    if (parent != FUSE_ROOT_ID || std::strcmp(name, "counter") != 0) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    fuse_entry_param e{};
    e.ino = counter_ino;
    e.entry_timeout = timeout;
    e.attr_timeout = timeout;
    fill(counter_ino, e.attr);
    fuse_reply_entry(req, &e);
}

void on_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
    struct stat st {};
    fill(ino, st);
    fuse_reply_attr(req, &st, timeout);
}

void on_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
    if (ino != counter_ino) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    auto* file = new open_file;
    file->seen = state_of(req).events.load();
    fi->fh = reinterpret_cast<std::uint64_t>(file);
    fi->direct_io = 1;
    if (fuse_reply_open(req, fi) != 0) delete file;
}

void on_read(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info* fi) {
    auto& file = *reinterpret_cast<open_file*>(fi->fh);
    if (off == 0) {
        file.seen = state_of(req).events.load();
        file.snapshot = fmt::format("{}\n", state_of(req).counter.load());
    }
    const auto offset = static_cast<std::size_t>(off);
    if (offset >= file.snapshot.size()) {
        fuse_reply_buf(req, nullptr, 0);
        return;
    }
    fuse_reply_buf(req, file.snapshot.data() + offset, std::min(size, file.snapshot.size() - offset));
}

void on_release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
    delete reinterpret_cast<open_file*>(fi->fh);
    fuse_reply_err(req, 0);
}

void on_poll(fuse_req_t req, fuse_ino_t, fuse_file_info* fi, fuse_pollhandle* ph) {
    auto& s = state_of(req);
    const auto& file = *reinterpret_cast<open_file*>(fi->fh);
    unsigned mask = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
    if (ph != nullptr) {
        std::lock_guard lock(s.mutex);
        s.pollers.push_back(ph);
    }
    if (file.seen != s.events.load()) mask |= POLLPRI | POLLERR;
    fuse_reply_poll(req, mask);
}

} // namespace

floor_fs::floor_fs(std::string mountpoint) : m_mountpoint(std::move(mountpoint)), m_state(std::make_unique<state>()) {
    fuse_lowlevel_ops ops{};
    ops.lookup = on_lookup;
    ops.getattr = on_getattr;
    ops.open = on_open;
    ops.read = on_read;
    ops.release = on_release;
    ops.poll = on_poll;
    const char* argv[] = {"floor", "-o", "fsname=floor,default_permissions"};
    fuse_args args = FUSE_ARGS_INIT(3, const_cast<char**>(argv));
    m_session = fuse_session_new(&args, &ops, sizeof(ops), m_state.get());
    fuse_opt_free_args(&args);
    if (m_session == nullptr) throw std::runtime_error("floor_fs: fuse_session_new failed");
    if (fuse_session_mount(m_session, m_mountpoint.c_str()) != 0) {
        fuse_session_destroy(m_session);
        throw std::runtime_error("floor_fs: cannot mount at " + m_mountpoint);
    }
    m_change_fd = ::eventfd(0, EFD_CLOEXEC);
    if (m_change_fd < 0) {
        fuse_session_unmount(m_session);
        fuse_session_destroy(m_session);
        throw std::runtime_error("floor_fs: eventfd failed");
    }
    m_loop = std::thread([this] { fuse_session_loop(m_session); });
    m_notifier = std::thread([this] {
        for (;;) {
            std::uint64_t n = 0;
            if (::read(m_change_fd, &n, sizeof n) != sizeof n) continue;
            if (n >= (1ull << 62)) return; // stop
            m_state->counter.fetch_add(1);
            m_state->events.fetch_add(1);
            std::vector<fuse_pollhandle*> waiting;
            {
                std::lock_guard lock(m_state->mutex);
                waiting.swap(m_state->pollers);
            }
            for (auto* ph : waiting) {
                fuse_lowlevel_notify_poll(ph);
                fuse_pollhandle_destroy(ph);
            }
        }
    });
}

void floor_fs::change() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(m_change_fd, &one, sizeof one);
}

floor_fs::~floor_fs() {
    const std::uint64_t stop = 1ull << 62;
    [[maybe_unused]] const auto n = ::write(m_change_fd, &stop, sizeof stop);
    m_notifier.join();
    fuse_session_exit(m_session);
    fuse_session_unmount(m_session); // ends the loop's read of /dev/fuse
    m_loop.join();
    for (auto* ph : m_state->pollers) fuse_pollhandle_destroy(ph);
    fuse_session_destroy(m_session);
    ::close(m_change_fd);
}

} // namespace neuron::bench
