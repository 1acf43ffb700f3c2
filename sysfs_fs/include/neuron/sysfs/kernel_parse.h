#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::sysfs {

// The buffer a sysfs store() sees: at most one page of what was written, and,
// since the kernel NUL-terminates it, C string functions stop at the first NUL.
inline constexpr std::size_t sysfs_page_size = 4096;
std::string_view store_text(std::string_view written);

// kstrtoll / kstrtoull with base 10: an optional sign ('+' or, signed only,
// '-'), digits, and at most one trailing newline; no spaces, no overflow.
std::optional<std::int64_t> parse_kstrtoll(std::string_view text);
std::optional<std::uint64_t> parse_kstrtoull(std::string_view text);

// sysfs_streq: equal, where a newline followed by the end counts as the end.
bool sysfs_streq(std::string_view a, std::string_view b);

// What a write to a device's `uevent` file must be (lib/kobject_uevent.c,
// kobject_synth_uevent): an action (add, remove, change, move, online,
// offline, bind, unbind), optionally followed by a space, a UUID and
// " KEY=VALUE" pairs of letters and digits; one trailing newline or NUL is
// dropped. `written` is the raw buffer (at most a page).
bool valid_synthetic_uevent(std::string_view written);

} // namespace neuron::sysfs
