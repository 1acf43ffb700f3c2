#pragma once

#include <string>
#include <string_view>

namespace neuron::test_support {

// A private directory, /tmp/STEM.XXXXXX, removed with everything in it when
// destroyed. Under /tmp rather than $TMPDIR: the path of a unix socket made
// in it must stay within 108 bytes.
class temporary_directory {
public:
    explicit temporary_directory(std::string_view stem = "neuron-test");
    ~temporary_directory();
    temporary_directory(const temporary_directory&) = delete;
    temporary_directory& operator=(const temporary_directory&) = delete;

    // Without symbolic links, as /proc/self/mountinfo lists mount points.
    const std::string& path() const { return m_path; }
    std::string operator/(std::string_view relative) const;

    // Writes `bytes` to `relative`, creating the directories on the way; its path.
    std::string write(std::string_view relative, std::string_view bytes) const;

private:
    std::string m_path;
};

} // namespace neuron::test_support
