#pragma once

#include "neuron/common/regular_file.h"

#include <string>
#include <string_view>
#include <sys/types.h>

// Output files at paths a user gives (record -o, profile view --output-file,
// the runtime's profile and inspect files), created so that whoever runs us
// (root, a job in a shared output directory) cannot be turned against files
// it did not mean to write:
//
// - The directories on the way are walked one at a time (openat). A symbolic
//   link among them is followed only when the directory holding it is the
//   caller's: owned by the caller or root and writable by no one else. One
//   in a directory others can write (/tmp, a shared output directory, another
//   user's home) may have been planted there, and is refused.
// - The file is never reached through a symbolic link: one where the file
//   goes is refused, whoever made it (O_NOFOLLOW).
// - What is already there is replaced only when it is a regular file (or, in
//   a directory of the caller's, a character device such as /dev/null,
//   written as it is); in a directory others can write, only when it is the
//   caller's own and has no other name (a planted hard link to someone else's
//   file, or to root's own, would have one).
//
// Each refusal or failure is a file_error "PATH: why", one line, the path
// escaped.
namespace neuron::common {

// A descriptor the caller owns, open for writing (close-on-exec): the file at
// `path` created (`mode` less the umask) or truncated, by the rules above.
int open_output_file(const std::string& path, mode_t mode = 0644);

// Creates or truncates the file at `path` with `bytes`.
void write_output_file(const std::string& path, std::string_view bytes, mode_t mode = 0644);

// The file at `path` holding `bytes`, whole or not at all: they go to a
// fresh file beside it (O_EXCL), renamed over it. A symbolic link or anything
// but a regular file at `path` is refused, not replaced.
void replace_output_file(const std::string& path, std::string_view bytes, mode_t mode = 0644);

// The directory at `path` and those above it, as mkdir -p (0755 less the
// umask) by the rules above: a directory reached through a link planted in
// one others can write is refused. Returns a descriptor of it the caller
// owns (O_RDONLY | O_DIRECTORY, close-on-exec).
int make_output_directories(const std::string& path);

} // namespace neuron::common
