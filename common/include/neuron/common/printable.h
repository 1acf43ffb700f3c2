#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace neuron::common {

// Text from outside (a file, a client, a device) made safe to quote in a
// one-line message or a terminal: C0 controls, DEL, C1 controls, U+FFFE,
// U+FFFF and bytes that are not valid UTF-8 become \n, \r, \t or \xNN (one
// per byte), and a backslash becomes \\ so that the escaping is unambiguous.
std::string printable(std::string_view text);

// printable() of the first `limit` bytes at most; a longer text ends in
// "...(N bytes)" so a message stays short.
std::string printable(std::string_view text, std::size_t limit);

// A whole message made safe to print as one line: the same escapes, but a
// backslash is left alone, so the parts already quoted with printable() come
// out unchanged.
std::string printable_message(std::string_view text);

// printable_message() of each line of a text of several lines (a command's
// help, what a child process said), its newlines kept.
std::string printable_lines(std::string_view text);

} // namespace neuron::common
