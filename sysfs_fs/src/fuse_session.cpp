#include "fuse_operations.h"

#include "neuron/sysfs/call_interrupter.h"
#include "neuron/sysfs/errors.h"
#include "neuron/sysfs/fuse_server.h"
#include "neuron/sysfs/system_calls.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <unistd.h>

// The FUSE session's life (mounting, the serving loop, stopping) and the
// poll notifications the tree's changes send through it.
namespace neuron::sysfs {
namespace {

// A request is its headers (a page is room enough, as libfuse allows) and
// at most fuse_max_write bytes of data.
constexpr std::size_t request_buffer_size = fuse_max_write + 4096;

} // namespace

bool fuse_device_usable(std::string& why) {
    if (::access("/dev/fuse", R_OK | W_OK) == 0) return true;
    why = fmt::format("cannot use /dev/fuse ({}): FUSE is not available here", std::strerror(errno));
    return false;
}

void fuse_poll_waker::wake(void* handle) {
    auto* ph = static_cast<fuse_pollhandle*>(handle);
    // Fails only when the file is already gone (ENOENT) or the connection is
    // down; either way nobody is left to wake.
    fuse_lowlevel_notify_poll(ph);
    fuse_pollhandle_destroy(ph);
}

void fuse_poll_waker::discard(void* handle) { fuse_pollhandle_destroy(static_cast<fuse_pollhandle*>(handle)); }

void fuse_server::mount(const std::string& mountpoint) {
    if (m_session != nullptr) throw mount_error(fmt::format("already serving at {}", m_mountpoint));
    if (std::string why; !fuse_device_usable(why)) throw mount_error(why);
    std::string options = "fsname=neuron-emu,subtype=neuron-emu,default_permissions";
    if (m_options.allow_other) options += ",allow_other";
    const char* argv[] = {"neuron-emu", "-o", options.c_str()};
    fuse_args args = FUSE_ARGS_INIT(3, const_cast<char**>(argv));
    const auto ops = fuse_server_operations();
    m_session = fuse_session_new(&args, &ops, sizeof(ops), this);
    fuse_opt_free_args(&args); // parsing replaced them with an allocated copy
    if (m_session == nullptr) throw mount_error("cannot create a FUSE session (libfuse rejected the options)");
    if (fuse_session_mount(m_session, mountpoint.c_str()) != 0) {
        fuse_session_destroy(m_session);
        m_session = nullptr;
        throw mount_error(fmt::format("cannot mount the sysfs tree at {} (see libfuse's message above)", mountpoint));
    }
    m_mountpoint = mountpoint;
    m_stopping = false;
    call_interrupter::install();
    std::promise<void> served;
    m_served = served.get_future();
    m_thread = std::thread([this, served = std::move(served)]() mutable {
        serve();
        served.set_value();
    });
}

// The loop sleeps in read(2) itself, not in poll(2): one system call less
// per request. stop() ends the read with a signal (call_interrupter).
void fuse_server::serve() {
    call_interrupter::unblock_on_this_thread();
    // Not zero-filled: the kernel backs only the pages requests are written to.
    const auto request = std::make_unique_for_overwrite<char[]>(request_buffer_size);
    const int fd = fuse_session_fd(m_session);
    while (!m_stopping.load()) {
        const auto received = sys().read(fd, request.get(), request_buffer_size);
        if (received < 0) {
            // ENOENT: the request was interrupted before it was taken.
            if (errno == EINTR || errno == EAGAIN || errno == ENOENT) continue;
            if (errno != ENODEV) {
                fmt::print(stderr, "neuron-emu: reading sysfs requests failed: {}\n", std::strerror(errno));
            }
            break; // ENODEV: the tree was unmounted
        }
        if (received == 0) break;
        fuse_buf buffer{};
        buffer.size = static_cast<std::size_t>(received);
        buffer.mem = request.get();
        fuse_session_process_buf(m_session, &buffer);
    }
    if (!m_stopping) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto n = sys().write(m_ended_fd, &one, sizeof(one));
    }
}

void fuse_server::stop() {
    std::lock_guard lock(m_stop_mutex);
    if (m_session == nullptr) return;
    m_stopping = true;
    if (m_thread.joinable()) {
        call_interrupter::interrupt_until(m_thread.native_handle(), m_served);
        m_thread.join();
    }
    fuse_session_unmount(m_session);
    fuse_session_destroy(m_session);
    m_session = nullptr;
    forget_open_files();
}

} // namespace neuron::sysfs
