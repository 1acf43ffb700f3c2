#include "neuron/common/posix_names.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <sys/wait.h>

namespace neuron::common {
namespace {

struct named {
    std::string_view name;
    int value;
};

constexpr std::array errnos{
    named{"EPERM", EPERM},         named{"ENOENT", ENOENT},     named{"EIO", EIO},
    named{"ENXIO", ENXIO},         named{"EBADF", EBADF},       named{"EAGAIN", EAGAIN},
    named{"ENOMEM", ENOMEM},       named{"EACCES", EACCES},     named{"EFAULT", EFAULT},
    named{"EBUSY", EBUSY},         named{"EEXIST", EEXIST},     named{"ENODEV", ENODEV},
    named{"ENOTDIR", ENOTDIR},     named{"EISDIR", EISDIR},     named{"EINVAL", EINVAL},
    named{"EFBIG", EFBIG},         named{"ENOSPC", ENOSPC},     named{"ESPIPE", ESPIPE},
    named{"EROFS", EROFS},         named{"ERANGE", ERANGE},     named{"ENOSYS", ENOSYS},
    named{"ENOTSUP", ENOTSUP},     named{"ENOTCONN", ENOTCONN}, named{"ETIMEDOUT", ETIMEDOUT},
    named{"ENOTEMPTY", ENOTEMPTY},
};

constexpr std::array signals{
    named{"SIGHUP", SIGHUP},   named{"SIGINT", SIGINT},   named{"SIGQUIT", SIGQUIT}, named{"SIGILL", SIGILL},
    named{"SIGABRT", SIGABRT}, named{"SIGBUS", SIGBUS},   named{"SIGFPE", SIGFPE},   named{"SIGKILL", SIGKILL},
    named{"SIGUSR1", SIGUSR1}, named{"SIGSEGV", SIGSEGV}, named{"SIGUSR2", SIGUSR2}, named{"SIGPIPE", SIGPIPE},
    named{"SIGALRM", SIGALRM}, named{"SIGTERM", SIGTERM},
};

} // namespace

std::optional<int> errno_from_name(std::string_view name) {
    for (const auto& e : errnos) {
        if (e.name == name) return e.value;
    }
    return std::nullopt;
}

std::string errno_name(int error) {
    for (const auto& e : errnos) {
        if (e.value == error) return std::string(e.name);
    }
    return "errno " + std::to_string(error);
}

std::string errno_names() {
    std::string out;
    for (const auto& e : errnos) {
        if (!out.empty()) out += ", ";
        out += e.name;
    }
    return out;
}

std::optional<int> signal_from_name(std::string_view name) {
    int number = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
    if (ec == std::errc() && end == name.data() + name.size() && number > 0 && number < 65) return number;
    for (const auto& s : signals) {
        if (s.name == name || s.name.substr(3) == name) return s.value;
    }
    return std::nullopt;
}

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "signal " + signal_name(WTERMSIG(status));
    return "wait status " + std::to_string(status);
}

std::string signal_name(int signal) {
    for (const auto& s : signals) {
        if (s.value == signal) return std::string(s.name);
    }
    return "signal " + std::to_string(signal);
}

} // namespace neuron::common
