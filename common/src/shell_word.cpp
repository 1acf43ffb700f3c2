#include "neuron/common/shell_word.h"

namespace neuron::common {

std::string shell_word(const std::string& arg) {
    if (!arg.empty() && arg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                                              "@%+=:,./_-") == std::string::npos) {
        return arg;
    }
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace neuron::common
