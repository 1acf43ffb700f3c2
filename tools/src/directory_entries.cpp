#include "directory_entries.h"

#include <dirent.h>
#include <string_view>

namespace neuron::tools {

std::vector<std::string> directory_entries(const std::string& dir) {
    std::vector<std::string> names;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return names;
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return names;
}

} // namespace neuron::tools
