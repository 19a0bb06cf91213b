#pragma once
// Note [TCPStore protocol]: a message is a 32-bit little-endian body length
// and the body. A request's body is a Request byte and its fields; a reply's
// is a Reply byte and, for Ok, the request's result (Failed carries a
// message). Integers are little-endian, strings and values a 32-bit length
// and their bytes, key lists a 32-bit count and their keys. Calls that wait
// (Get, Wait) carry their timeout: the server answers TimedOut at the
// deadline, so the stream stays in step and the client never reads an old
// answer. A server closes a connection that sends a malformed message or one
// over kMaxMessageBytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ember::distributed {

enum class Request : std::uint8_t { Set = 1, Get, Add, CompareSet, Check, Wait, DeleteKey, NumKeys };
enum class Reply : std::uint8_t { Ok = 0, TimedOut, Failed };

inline constexpr std::uint32_t kMaxMessageBytes = 1u << 30;
inline constexpr std::size_t kLengthBytes = 4;

class MessageWriter {
 public:
  MessageWriter& u8(std::uint8_t value);
  MessageWriter& i64(std::int64_t value);
  MessageWriter& bytes(std::string_view value);
  MessageWriter& keys(const std::vector<std::string>& keys);
  // The framed message: length, then body.
  std::string finish() const;

 private:
  std::string body_;
};

// Reads fields from one body; throws ErrorKind::DistributedStore when a
// field runs past its end.
class MessageReader {
 public:
  explicit MessageReader(std::string_view body) : body_(body) {}
  std::uint8_t u8();
  std::int64_t i64();
  std::string bytes();
  std::vector<std::string> keys();
  bool at_end() const { return body_.empty(); }

 private:
  std::string_view take(std::size_t size);
  std::string_view body_;
};

std::uint32_t decode_length(const char* four_bytes);

}  // namespace ember::distributed
