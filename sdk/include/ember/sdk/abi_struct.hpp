// abi_struct.hpp -- `write_struct()`: fills an ABI struct the other side has
// sized, so that neither side writes past what the other knows.
#ifndef EMBER_SDK_ABI_STRUCT_HPP_
#define EMBER_SDK_ABI_STRUCT_HPP_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace ember::sdk {

// Copies every field of `value` but struct_size into `dst`, truncated to
// dst->struct_size, so a reader built with an older, smaller struct receives
// only the fields it knows (Note [ABI versioning] in ember_plugin.h).
template <class S>
void write_struct(S* dst, const S& value) {
  static_assert(std::is_trivially_copyable_v<S>, "ABI structs are plain data");
  const size_t limit = std::min(dst->struct_size, sizeof(S));
  if (limit > sizeof(size_t)) {
    std::memcpy(reinterpret_cast<char*>(dst) + sizeof(size_t), reinterpret_cast<const char*>(&value) + sizeof(size_t),
                limit - sizeof(size_t));
  }
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_ABI_STRUCT_HPP_
