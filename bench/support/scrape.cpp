#include "support/scrape.h"

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::bench {
namespace {

void read_one(const std::string& path, scrape_result& r,
              const std::function<void(const std::string&, const std::string&, int)>& on_file) {
    ++r.files;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ++r.errors;
        if (on_file) on_file(path, {}, errno);
        return;
    }
    char buffer[4096];
    std::string text;
    int error = 0;
    for (;;) {
        const auto n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = errno;
            break;
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    r.bytes += text.size();
    if (error != 0) ++r.errors;
    if (on_file) on_file(path, text, error);
}

void walk(const std::string& dir, scrape_result& r,
          const std::function<void(const std::string&, const std::string&, int)>& on_file) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
        ++r.errors;
        return;
    }
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        const auto path = dir + "/" + name;
        unsigned char type = e->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st {};
            if (::lstat(path.c_str(), &st) != 0) continue;
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
        }
        if (type == DT_DIR) {
            walk(path, r, on_file);
        } else if (type == DT_REG) {
            read_one(path, r, on_file);
        }
    }
    ::closedir(d);
}

} // namespace

scrape_result scrape(const std::string& root,
                     const std::function<void(const std::string&, const std::string&, int)>& on_file) {
    scrape_result r;
    walk(root, r, on_file);
    return r;
}

} // namespace neuron::bench
