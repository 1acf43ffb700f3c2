#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace neuron::sysfs {

// The contents of a recorded host's files that the model does not produce
// (attribute_kind::recorded): each file's recorded text, or the errno its
// read failed with, and, for a sampled counter, the texts it took later.
class recorded_files {
public:
    struct timed_text {
        std::uint64_t at_ns = 0; // simulated time from which the file shows text
        std::string text;
    };
    struct file {
        int error = 0;                 // the read fails with it; no texts then
        std::vector<timed_text> texts; // by time, the first at 0
    };

    // Returns the index an attribute names. Texts must be in time order. An
    // errno FUSE cannot carry is served as the one a reader would see
    // (ENOTSUPP as EOPNOTSUPP), or as EIO.
    std::uint32_t add(file f);
    std::size_t size() const { return m_files.size(); }

    // What the file shows at simulated time now_ns: {errno, ""} or {0, text}.
    std::pair<int, std::string> read(std::uint32_t index, std::uint64_t now_ns) const;

private:
    std::vector<file> m_files;
};

} // namespace neuron::sysfs
