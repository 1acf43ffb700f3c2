#pragma once

// Encoding and decoding of described messages. A message body is a struct
// that names itself and lists its fields, in wire order, once:
//
//     struct hello {
//         peer_role role = peer_role::runtime;
//         std::uint32_t pid = 0;
//         std::string label;
//         static constexpr const char* wire_name = "hello";
//         template <typename Self, typename Visit> static void fields(Self& m, Visit&& v) {
//             v("role", m.role); v("pid", m.pid); v("label", m.label);
//         }
//     };
//
// encode_fields() walks that list with a writer, decode_fields() with a
// reader, so the two cannot disagree. A field is a fixed-width integer (its
// C++ type is its width), a double, a bool, a std::string, an enum with a
// wire_range() (below), another described struct, or a std::vector of one of
// those with its largest count: v("shape", m.shape, max_count{8}). A body
// that must hold more than each field's own rule has a `void validate()
// const` that throws protocol_error; decoding calls it. Header only, standard
// library only: the runtime shim includes it.

#include "neuron/protocol/wire.h"

#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace neuron::protocol {

// The values an enum may take on the wire, first to last with none missing,
// and what to call it in an error ("hello: unknown role 7 in hello.role").
// An enum is a field once its namespace has
//     constexpr enum_range<E> wire_range(E) { return {"what", E::first, E::last}; }
// (found by argument-dependent lookup); it travels as its underlying type.
template <typename E>
struct enum_range {
    const char* name;
    E first;
    E last;
};

template <typename E>
concept wire_enum = std::is_enum_v<E> && requires(E e) {
    { wire_range(e) } -> std::same_as<enum_range<E>>;
};

// A vector field's largest element count; decoding refuses a larger one
// before reading (or allocating for) any element.
struct max_count {
    std::uint32_t value;
};

template <typename T>
concept described_message = requires {
    { T::wire_name } -> std::convertible_to<const char*>;
};

namespace codec_detail {

template <typename T>
inline constexpr bool always_false = false;

template <typename E>
constexpr std::underlying_type_t<E> to_underlying(E e) { // std::to_underlying is C++23
    return static_cast<std::underlying_type_t<E>>(e);
}

template <typename T>
inline constexpr bool is_vector = false;
template <typename T, typename A>
inline constexpr bool is_vector<std::vector<T, A>> = true;

// The integer types the wire has, by C++ type.
template <typename T>
concept wire_integer =
    std::integral<T> && !std::same_as<T, bool> &&
    ((std::is_unsigned_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8)) ||
     (std::is_signed_v<T> && (sizeof(T) == 4 || sizeof(T) == 8)));

template <wire_enum E>
constexpr enum_range<E> checked_range() {
    constexpr auto range = wire_range(E{});
    static_assert(to_underlying(range.first) <= to_underlying(range.last),
                  "an enum's wire_range must run from its first value to its last");
    return range;
}

template <typename T>
concept validated = requires(const T& m) {
    m.validate();
};

// Appends fields; names do not matter here.
class field_writer {
public:
    explicit field_writer(wire_writer& out) : m_out(out) {}

    template <typename T>
    void operator()(const char*, const T& value) {
        static_assert(!is_vector<T>, "a vector field needs its largest count: v(name, field, max_count{n})");
        write(value);
    }

    // The count is not checked here: the decoder is the side that refuses.
    template <typename T>
    void operator()(const char*, const std::vector<T>& values, max_count) {
        static_assert(!is_vector<T>, "vectors of vectors are not a wire type");
        m_out.u32(static_cast<std::uint32_t>(values.size()));
        for (const auto& value : values) write(value);
    }

private:
    template <typename T>
    void write(const T& value) {
        if constexpr (std::same_as<T, bool>) {
            m_out.boolean(value);
        } else if constexpr (wire_enum<T>) {
            static_cast<void>(checked_range<T>()); // for its static_assert
            write(to_underlying(value));
        } else if constexpr (wire_integer<T> && std::is_unsigned_v<T>) {
            if constexpr (sizeof(T) == 1)
                m_out.u8(value);
            else if constexpr (sizeof(T) == 2)
                m_out.u16(value);
            else if constexpr (sizeof(T) == 4)
                m_out.u32(value);
            else
                m_out.u64(value);
        } else if constexpr (wire_integer<T>) {
            if constexpr (sizeof(T) == 4)
                m_out.i32(value);
            else
                m_out.i64(value);
        } else if constexpr (std::same_as<T, double>) {
            m_out.f64(value);
        } else if constexpr (std::same_as<T, std::string>) {
            m_out.string(value);
        } else if constexpr (described_message<T>) {
            T::fields(value, *this);
        } else {
            static_assert(always_false<T>, "no wire encoding for this field type (an enum needs a wire_range)");
        }
    }

    wire_writer& m_out;
};

template <described_message T>
T read_fields(wire_reader& in, std::string& name_buffer);

// Reads fields, naming each "message.field" in its errors. The name is
// composed in one buffer reused across fields (and nested structs), so a
// decode costs at most one allocation for names.
class field_reader {
public:
    field_reader(wire_reader& in, const char* message, std::string& name_buffer)
            : m_in(in), m_message(message), m_name(name_buffer) {}

    template <typename T>
    void operator()(const char* field, T& value) {
        static_assert(!is_vector<T>, "a vector field needs its largest count: v(name, field, max_count{n})");
        value = read<T>(field);
    }

    template <typename T>
    void operator()(const char* field, std::vector<T>& values, max_count max) {
        static_assert(!is_vector<T>, "vectors of vectors are not a wire type");
        const auto count = m_in.u32(name(field, " count"));
        if (count > max.value) {
            throw protocol_error(std::string(m_message) + ": " + std::to_string(count) + " entries in " + name(field) +
                                 ", more than " + std::to_string(max.value));
        }
        values.clear(); // a default value (emit_debug's shape{1}) is replaced, not extended
        for (std::uint32_t i = 0; i < count; ++i) values.push_back(read<T>(field));
    }

private:
    const char* name(const char* field, const char* suffix = "") {
        m_name.assign(m_message).append(".").append(field).append(suffix);
        return m_name.c_str();
    }

    template <typename T>
    T read(const char* field) {
        if constexpr (std::same_as<T, bool>) {
            return m_in.boolean(name(field));
        } else if constexpr (wire_enum<T>) {
            using raw_type = std::underlying_type_t<T>;
            constexpr auto range = checked_range<T>();
            constexpr raw_type first = to_underlying(range.first);
            constexpr raw_type last = to_underlying(range.last);
            const auto raw = read<raw_type>(field);
            // (the guards spare a comparison that is always true, which g++ warns of)
            bool known = true;
            if constexpr (first != std::numeric_limits<raw_type>::min()) known = raw >= first;
            if constexpr (last != std::numeric_limits<raw_type>::max()) known = known && raw <= last;
            if (!known) {
                throw protocol_error(std::string(m_message) + ": unknown " + range.name + " " + std::to_string(raw) +
                                     " in " + name(field));
            }
            return static_cast<T>(raw);
        } else if constexpr (wire_integer<T> && std::is_unsigned_v<T>) {
            if constexpr (sizeof(T) == 1)
                return m_in.u8(name(field));
            else if constexpr (sizeof(T) == 2)
                return m_in.u16(name(field));
            else if constexpr (sizeof(T) == 4)
                return m_in.u32(name(field));
            else
                return m_in.u64(name(field));
        } else if constexpr (wire_integer<T>) {
            if constexpr (sizeof(T) == 4)
                return m_in.i32(name(field));
            else
                return m_in.i64(name(field));
        } else if constexpr (std::same_as<T, double>) {
            return m_in.f64(name(field));
        } else if constexpr (std::same_as<T, std::string>) {
            return m_in.string(name(field));
        } else if constexpr (described_message<T>) {
            return read_fields<T>(m_in, m_name);
        } else {
            static_assert(always_false<T>, "no wire encoding for this field type (an enum needs a wire_range)");
        }
    }

    wire_reader& m_in;
    const char* m_message;
    std::string& m_name;
};

template <described_message T>
T read_fields(wire_reader& in, std::string& name_buffer) {
    T m{};
    T::fields(m, field_reader(in, T::wire_name, name_buffer));
    if constexpr (validated<T>) m.validate();
    return m;
}

} // namespace codec_detail

// Appends `m`'s fields to `out`, in the order its fields() lists them.
template <described_message T>
void encode_fields(wire_writer& out, const T& m) {
    T::fields(m, codec_detail::field_writer(out));
}

// Reads a `T` from `in` and validates it; what follows it is left unread
// (decode_body in messages.h refuses trailing bytes).
template <described_message T>
T decode_fields(wire_reader& in) {
    std::string name_buffer;
    return codec_detail::read_fields<T>(in, name_buffer);
}

} // namespace neuron::protocol
