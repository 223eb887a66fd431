#include "sampling_lab/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

// Grisu2 (Loitsch 2010) as nlohmann::json writes doubles: the shortest text that reads back to
// the same double, with no printf.
#include <nlohmann/detail/conversions/to_chars.hpp>

#include "decimal.hpp"

// JSON text: the parser and the writer. Native code only (tests, fuzzing, the golden files): the
// WebAssembly modules hand Json trees to JavaScript as values (wasm/experiment_bindings.cpp).
namespace sampling_lab {

namespace {

// The length of the UTF-8 sequence at text[at], or 0 if none starts there (RFC 3629: no
// overlong forms, surrogates or code points above U+10FFFF).
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return i < text.size() ? std::uint8_t(text[i]) : 0; };
  const std::uint8_t lead = byte(at);
  const auto continuation = [&](std::size_t i, std::uint8_t low = 0x80, std::uint8_t high = 0xBF) {
    return byte(i) >= low && byte(i) <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(at + 1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const std::uint8_t low = lead == 0xE0 ? 0xA0 : 0x80;
    const std::uint8_t high = lead == 0xED ? 0x9F : 0xBF;
    return continuation(at + 1, low, high) && continuation(at + 2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const std::uint8_t low = lead == 0xF0 ? 0x90 : 0x80;
    const std::uint8_t high = lead == 0xF4 ? 0x8F : 0xBF;
    return continuation(at + 1, low, high) && continuation(at + 2) && continuation(at + 3) ? 4 : 0;
  }
  return 0;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += char(code);
  } else if (code < 0x800) {
    out += char(0xC0 | (code >> 6));
    out += char(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += char(0xE0 | (code >> 12));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  } else {
    out += char(0xF0 | (code >> 18));
    out += char(0x80 | ((code >> 12) & 0x3F));
    out += char(0x80 | ((code >> 6) & 0x3F));
    out += char(0x80 | (code & 0x3F));
  }
}

void write_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t length = utf8_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that starts no UTF-8 sequence
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (std::uint8_t(c) < 0x20) {
      out += "\\u00";
      out += kHex[std::uint8_t(c) >> 4];
      out += kHex[std::uint8_t(c) & 15];
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  out += '"';
}

void write_number(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  // Whole numbers of up to 2^53 as integers (counts, ids, seeds).
  if (x == std::trunc(x) && std::abs(x) <= 9007199254740992.0) {
    char digits[24];
    char* end = digits + sizeof digits;
    char* at = end;
    std::uint64_t magnitude = std::uint64_t(std::abs(x));
    do {
      *--at = char('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude > 0);
    if (x < 0) *--at = '-';
    out.append(at, end);
    return;
  }
  char text[64];
  const char* end = nlohmann::detail::to_chars(text, text + sizeof text, x);
  out.append(text, std::size_t(end - text));
}

}  // namespace

// The RFC 8259 grammar, at most kMaxDepth arrays and objects deep (no call recursion beyond it).
class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Json parse() {
    Json value;
    if (!parse_value(value, 0)) return Json(Json::Discarded{});
    skip_space();
    return at_ == text_.size() ? value : Json(Json::Discarded{});
  }

 private:
  static constexpr int kMaxDepth = 64;

  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (text_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }

  bool parse_value(Json& value, int depth) {
    skip_space();
    if (at_ == text_.size()) return false;
    const char c = text_[at_];
    if (c == '{') return depth < kMaxDepth && parse_object(value, depth + 1);
    if (c == '[') return depth < kMaxDepth && parse_array(value, depth + 1);
    if (c == '"') {
      std::string text;
      if (!parse_string(text)) return false;
      value = Json(std::move(text));
      return true;
    }
    if (word("true")) return value = true, true;
    if (word("false")) return value = false, true;
    if (word("null")) return value = nullptr, true;
    return parse_number(value);
  }

  bool parse_object(Json& value, int depth) {
    ++at_;
    Json::Object members;
    if (!take('}')) {
      do {
        skip_space();
        Json::Member member;
        if (!parse_string(member.first) || !take(':') || !parse_value(member.second, depth)) return false;
        // A repeated key keeps its last value, as JSON.parse does.
        auto same = std::find_if(members.begin(), members.end(), [&](const Json::Member& m) { return m.first == member.first; });
        if (same != members.end()) same->second = std::move(member.second);
        else members.push_back(std::move(member));
      } while (take(','));
      if (!take('}')) return false;
    }
    value = Json(std::move(members));
    return true;
  }

  bool parse_array(Json& value, int depth) {
    ++at_;
    Json::Array items;
    if (!take(']')) {
      do {
        items.emplace_back();
        if (!parse_value(items.back(), depth)) return false;
      } while (take(','));
      if (!take(']')) return false;
    }
    value = Json(std::move(items));
    return true;
  }

  bool hex4(std::uint32_t& code) {
    if (text_.size() - at_ < 4) return false;
    code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[at_++];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) return false;
      code = code * 16 + std::uint32_t(digit);
    }
    return true;
  }

  bool parse_string(std::string& out) {
    if (at_ >= text_.size() || text_[at_] != '"') return false;
    ++at_;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '"') {
        ++at_;
        return true;
      }
      if (std::uint8_t(c) < 0x20) return false;
      if (c != '\\') {
        const std::size_t length = utf8_length(text_, at_);
        if (length == 0) return false;
        out.append(text_.substr(at_, length));
        at_ += length;
        continue;
      }
      if (++at_ == text_.size()) return false;
      const char escape = text_[at_++];
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t code = 0;
          if (!hex4(code)) return false;
          if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a low surrogate alone
          if (code >= 0xD800 && code <= 0xDBFF) {
            std::uint32_t low = 0;
            if (!word("\\u") || !hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, read to the nearest double.
  bool parse_number(Json& value) {
    const std::size_t start = at_;
    const auto digits = [&] {
      const std::size_t first = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      return at_ - first;
    };
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    const std::size_t integer_start = at_;
    const std::size_t integer_digits = digits();
    if (integer_digits == 0 || (integer_digits > 1 && text_[integer_start] == '0')) return false;
    if (at_ < text_.size() && text_[at_] == '.') {
      ++at_;
      if (digits() == 0) return false;
    }
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      if (digits() == 0) return false;
    }
    value = Json(decimal_to_double(text_.substr(start, at_ - start)));
    return true;
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

Json Json::parse(std::string_view text) { return JsonParser(text).parse(); }

std::string Json::dump() const {
  std::string out;
  write(out);
  return out;
}

void Json::write(std::string& out) const {
  // Items between brackets, comma-separated.
  const auto list = [&out](char open, char close, const auto& items, const auto& write_item) {
    out += open;
    const char* comma = "";
    for (const auto& item : items) {
      out += comma;
      write_item(item);
      comma = ",";
    }
    out += close;
  };
  switch (value_.index()) {
    case kNull:
    case kDiscarded: out += "null"; break;
    case kBool: out += std::get<bool>(value_) ? "true" : "false"; break;
    case kNumber: write_number(out, std::get<double>(value_)); break;
    case kString: write_string(out, std::get<std::string>(value_)); break;
    case kArray: list('[', ']', std::get<Array>(value_), [&](const Json& item) { item.write(out); }); break;
    case kObject:
      list('{', '}', std::get<Object>(value_), [&](const Member& member) {
        write_string(out, member.first);
        out += ':';
        member.second.write(out);
      });
      break;
    // Bulk arrays as plain arrays of their bytes.
    case kBinary: list('[', ']', std::get<binary_t>(value_), [&](std::uint8_t byte) { write_number(out, byte); }); break;
  }
}

}  // namespace sampling_lab
