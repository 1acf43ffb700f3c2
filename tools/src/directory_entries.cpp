#include "directory_entries.h"

#include <cerrno>
#include <dirent.h>
#include <string_view>

namespace neuron::tools {

directory_listing list_directory(const std::string& dir) {
    directory_listing listing;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
        listing.error = errno;
        return listing;
    }
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name != "." && name != "..") listing.names.emplace_back(name);
    }
    ::closedir(d);
    return listing;
}

std::vector<std::string> directory_entries(const std::string& dir) { return list_directory(dir).names; }

} // namespace neuron::tools
