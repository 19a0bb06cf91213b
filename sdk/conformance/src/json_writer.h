// A minimal streaming JSON writer for the report: objects, arrays, strings
// (escaped), numbers and booleans; commas are placed automatically.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace ember::conformance {

class JsonWriter {
 public:
  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  void key(const std::string& name) {
    separate();
    write_string(name);
    out_ += ':';
    after_key_ = true;
  }
  void value(const std::string& text) {
    separate();
    write_string(text);
  }
  void value(const char* text) { value(std::string(text)); }
  void value(bool flag) {
    separate();
    out_ += flag ? "true" : "false";
  }
  void value(double number) {
    separate();
    if (!std::isfinite(number)) {
      out_ += "null";  // JSON has no NaN or infinity
      return;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", number);
    out_ += buffer;
  }
  void value(int64_t number) {
    separate();
    out_ += std::to_string(number);
  }
  void value(int number) { value(static_cast<int64_t>(number)); }
  void value(size_t number) { value(static_cast<int64_t>(number)); }

  template <class T>
  void field(const std::string& name, const T& v) {
    key(name);
    value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void open(char bracket) {
    separate();
    out_ += bracket;
    first_.push_back(true);
  }
  void close(char bracket) {
    out_ += bracket;
    first_.pop_back();
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  void write_string(const std::string& text) {
    out_ += '"';
    for (unsigned char c : text) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\t': out_ += "\\t"; break;
        case '\r': out_ += "\\r"; break;
        default:
          if (c < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out_ += buffer;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }

  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace ember::conformance
