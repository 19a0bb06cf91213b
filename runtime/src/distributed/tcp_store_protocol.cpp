#include "distributed/tcp_store_protocol.h"

#include "ember/error.h"

namespace ember::distributed {
namespace {

void append_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t read_le(std::string_view in) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < in.size(); ++i) value |= std::uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
  return value;
}

}  // namespace

MessageWriter& MessageWriter::u8(std::uint8_t value) {
  body_.push_back(static_cast<char>(value));
  return *this;
}

MessageWriter& MessageWriter::i64(std::int64_t value) {
  append_le(body_, static_cast<std::uint64_t>(value), 8);
  return *this;
}

MessageWriter& MessageWriter::bytes(std::string_view value) {
  if (value.size() > kMaxMessageBytes) {
    throw_error(ErrorKind::DistributedStore, "TCPStore: a key or value of " + std::to_string(value.size()) +
                                                 " bytes is over the limit of " + std::to_string(kMaxMessageBytes));
  }
  append_le(body_, value.size(), 4);
  body_ += value;
  return *this;
}

MessageWriter& MessageWriter::keys(const std::vector<std::string>& keys) {
  append_le(body_, keys.size(), 4);
  for (const std::string& key : keys) bytes(key);
  return *this;
}

std::string MessageWriter::finish() const {
  if (body_.size() > kMaxMessageBytes) {
    throw_error(ErrorKind::DistributedStore, "TCPStore: a message of " + std::to_string(body_.size()) +
                                                 " bytes is over the limit of " + std::to_string(kMaxMessageBytes));
  }
  std::string framed;
  framed.reserve(kLengthBytes + body_.size());
  append_le(framed, body_.size(), 4);
  return framed + body_;
}

std::string_view MessageReader::take(std::size_t size) {
  if (body_.size() < size) throw_error(ErrorKind::DistributedStore, "TCPStore: a malformed message");
  std::string_view field = body_.substr(0, size);
  body_.remove_prefix(size);
  return field;
}

std::uint8_t MessageReader::u8() { return static_cast<std::uint8_t>(take(1)[0]); }

std::int64_t MessageReader::i64() { return static_cast<std::int64_t>(read_le(take(8))); }

std::string MessageReader::bytes() {
  const auto size = static_cast<std::size_t>(read_le(take(4)));
  return std::string(take(size));
}

std::vector<std::string> MessageReader::keys() {
  const auto count = static_cast<std::size_t>(read_le(take(4)));
  std::vector<std::string> result;
  // Each key takes at least its length field: a count larger than that is
  // malformed, and must not reserve memory it names.
  if (count > body_.size() / kLengthBytes) throw_error(ErrorKind::DistributedStore, "TCPStore: a malformed message");
  result.reserve(count);
  for (std::size_t i = 0; i < count; ++i) result.push_back(bytes());
  return result;
}

std::uint32_t decode_length(const char* four_bytes) {
  return static_cast<std::uint32_t>(read_le(std::string_view(four_bytes, kLengthBytes)));
}

}  // namespace ember::distributed
