#pragma once

#include <string>
#include <vector>

namespace neuron::tools {

// The names in a directory, without "." and "..", in the order the file
// system gives them; `error` is the errno with which it could not be opened
// (then no names), else 0.
struct directory_listing {
    std::vector<std::string> names;
    int error = 0;
};

directory_listing list_directory(const std::string& dir);

// The names alone: none when the directory cannot be listed.
std::vector<std::string> directory_entries(const std::string& dir);

} // namespace neuron::tools
