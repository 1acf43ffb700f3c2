#include "neuron/sysfs/recorded_files.h"

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace neuron::sysfs {

namespace {

// FUSE carries only errnos below 512 (the kernel drops a reply with another,
// leaving the reader waiting): the kernel-internal ENOTSUPP (524), which
// sysfs can return, reaches user space as EOPNOTSUPP; others as EIO.
constexpr int enotsupp = 524;
constexpr int largest_fuse_errno = 511;

int servable(int error) {
    if (error == enotsupp) return EOPNOTSUPP;
    if (error < 0 || error > largest_fuse_errno) return EIO;
    return error;
}

} // namespace

std::uint32_t recorded_files::add(file f) {
    f.error = servable(f.error);
    if (f.error == 0 && (f.texts.empty() || f.texts.front().at_ns != 0)) {
        throw std::invalid_argument("a recorded file needs its text at time 0");
    }
    if (!std::is_sorted(f.texts.begin(), f.texts.end(),
                        [](const timed_text& a, const timed_text& b) { return a.at_ns < b.at_ns; })) {
        throw std::invalid_argument("a recorded file's texts must be in time order");
    }
    m_files.push_back(std::move(f));
    return static_cast<std::uint32_t>(m_files.size() - 1);
}

std::pair<int, std::string> recorded_files::read(std::uint32_t index, std::uint64_t now_ns) const {
    if (index >= m_files.size()) return {EIO, {}};
    const auto& f = m_files[index];
    if (f.error != 0) return {f.error, {}};
    // The last text whose instant has come.
    const auto after = std::upper_bound(f.texts.begin(), f.texts.end(), now_ns,
                                        [](std::uint64_t t, const timed_text& x) { return t < x.at_ns; });
    return {0, std::prev(after)->text};
}

} // namespace neuron::sysfs
