#include "neuron/test_support/skip.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace neuron::test_support {

namespace {
constexpr int exit_skipped = 77;
} // namespace

void skip(std::string_view why) {
    fmt::print(stderr, "skipped: {}\n", why);
    std::fflush(stderr);
    std::exit(exit_skipped);
}

void require_root(std::string_view why) {
    if (::geteuid() != 0) skip(fmt::format("{} (euid is {})", why, ::geteuid()));
}

void require_usable_fuse(std::string_view who) {
    if (::access("/dev/fuse", R_OK | W_OK) != 0) {
        skip(fmt::format("{} mounts FUSE and /dev/fuse is not usable: {}", who, std::strerror(errno)));
    }
}

void require_fuse_mount(std::string_view who) {
    require_root(fmt::format("{} mounts FUSE and needs root", who));
    require_usable_fuse(who);
}

} // namespace neuron::test_support
