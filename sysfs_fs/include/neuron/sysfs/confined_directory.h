#pragma once

#include <string>
#include <string_view>
#include <sys/types.h>

namespace neuron::sysfs {

// A directory that the materializer writes below without ever following a
// symlink found there: each path (relative to the directory, such as
// "neuron0/info/notify_delay") is walked from the directory's descriptor one
// component at a time with O_NOFOLLOW, files are written to a temporary name
// created with O_EXCL and renamed into place, so a link planted anywhere below
// cannot send a write outside. The directory itself is the path its user
// named, made and opened as an output directory (common/safe_output_file.h):
// a link on the way to it is followed unless it lies in a directory others
// can write.
//
// What is in the way of the tree: a symlink where a directory, file or link
// belongs is replaced (removing a link loses nothing; its target stays
// untouched); anything else where a directory belongs, or a directory where a
// file or link belongs, is refused with mount_error naming it, since it may be
// data of the user's that this class did not write.
class confined_directory {
public:
    // Creates the directory (and its parents) when missing. Throws mount_error.
    explicit confined_directory(std::string path);
    ~confined_directory();
    confined_directory(const confined_directory&) = delete;
    confined_directory& operator=(const confined_directory&) = delete;

    const std::string& path() const { return m_path; }

    // Each throws mount_error naming the path and what is wrong.
    void make_directory(const std::string& relative);
    void make_symlink(const std::string& relative, const std::string& target);
    void write_file(const std::string& relative, std::string_view content, mode_t mode);

private:
    class handle;
    handle open_parent(const std::string& relative, std::string& name) const;
    std::string full(const std::string& relative) const { return m_path + "/" + relative; }

    std::string m_path;
    int m_fd = -1;
};

} // namespace neuron::sysfs
