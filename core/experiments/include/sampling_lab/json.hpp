#pragma once
// The JSON of the experiments' parameters and results: null, booleans, numbers (doubles),
// strings, arrays, objects that keep their keys in insertion order, and binary arrays (the bulk
// arrays that cross to JavaScript as typed arrays). It is built the way nlohmann::json is (an
// initializer list of [string, value] pairs is an object, any other list an array), which is all
// of that library the experiments used; its own parser and writer keep printf and long-double
// arithmetic out of the WebAssembly module.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace sampling_lab {

class Json {
 public:
  struct Member;
  using Array = std::vector<Json>;
  using Object = std::vector<Member>;
  // Bytes with a subtype that says how to read them (BulkType).
  struct binary_t : std::vector<std::uint8_t> {
    std::uint8_t kind = 0;
    std::uint8_t subtype() const { return kind; }
  };

  Json() = default;
  // Out of line: one copy of the variant's visits, and none inlined where GCC cannot tell which
  // alternative a temporary holds.
  Json(const Json& other);
  Json(Json&& other) noexcept;
  Json& operator=(const Json& other);
  Json& operator=(Json&& other) noexcept;
  ~Json();
  // Defined below Member, which the variant's alternatives need complete.
  Json(std::nullptr_t);
  Json(bool value);
  template <class T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Json(T value);
  Json(const char* text);
  Json(std::string text);
  Json(std::string_view text);
  Json(std::initializer_list<Json> values);
  // A list of values (std::vector<double>, std::vector<std::string>, …) is an array.
  template <class List, class Item = typename List::value_type,
            std::enable_if_t<std::conjunction_v<std::negation<std::is_same<List, Object>>,
                                                std::negation<std::is_convertible<List, std::string_view>>,
                                                std::is_constructible<Json, Item>>, int> = 0>
  Json(const List& values);

  static Json array();
  static Json object();
  static Json binary(std::vector<std::uint8_t> bytes, std::uint8_t subtype);
  // The value `text` holds, or a discarded value (is_discarded) if it is not one JSON value.
  static Json parse(std::string_view text);

  bool is_null() const { return value_.index() == kNull; }
  bool is_boolean() const { return value_.index() == kBool; }
  bool is_number() const { return value_.index() == kNumber; }
  bool is_number_float() const { return is_number(); }
  bool is_string() const { return value_.index() == kString; }
  bool is_array() const { return value_.index() == kArray; }
  bool is_object() const { return value_.index() == kObject; }
  bool is_binary() const { return value_.index() == kBinary; }
  bool is_structured() const { return is_array() || is_object(); }
  bool is_discarded() const { return value_.index() == kDiscarded; }

  // A number as T, a string, a boolean, or an array of numbers as std::vector<double>.
  template <class T>
  T get() const {
    if constexpr (std::is_same_v<T, std::string>) {
      return std::get<std::string>(value_);
    } else if constexpr (std::is_same_v<T, bool>) {
      return std::get<bool>(value_);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      std::vector<double> numbers;
      for (const Json& item : std::get<Array>(value_)) numbers.push_back(item.get<double>());
      return numbers;
    } else {
      return T(std::get<double>(value_));
    }
  }
  binary_t& get_binary() { return std::get<binary_t>(value_); }
  const binary_t& get_binary() const { return std::get<binary_t>(value_); }

  // Arrays and objects: their values in order (an object's without keys); nothing otherwise.
  template <class Value, class MemberType>
  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Json;
    using difference_type = std::ptrdiff_t;
    using pointer = Value*;
    using reference = Value&;
    Iterator(Value* item, MemberType* member) : item_(item), member_(member) {}
    Value& operator*() const { return item_ ? *item_ : member_->second; }
    Value* operator->() const { return &**this; }
    Iterator& operator++() {
      if (item_) ++item_; else ++member_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return item_ == other.item_ && member_ == other.member_; }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    Value* item_;
    MemberType* member_;
  };
  using iterator = Iterator<Json, Member>;
  using const_iterator = Iterator<const Json, const Member>;
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;

  // An object's members, each with key() and value() (or [key, value]).
  Object& items() { return std::get<Object>(value_); }
  const Object& items() const { return std::get<Object>(value_); }

  std::size_t size() const;
  bool empty() const { return size() == 0; }

  // Objects. A null value becomes an object; a key it lacks is added, null.
  Json& operator[](std::string_view key);
  Json& operator[](const char* key) { return (*this)[std::string_view(key)]; }
  // The value at `key`, or a null when there is none.
  const Json& operator[](std::string_view key) const;
  const Json& operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != end(); }
  void erase(std::string_view key);
  // Sets every member of `other` here, in its order.
  void update(const Json& other);

  // Arrays. A null value becomes an array.
  Json& operator[](std::size_t index) { return std::get<Array>(value_)[index]; }
  const Json& operator[](std::size_t index) const { return std::get<Array>(value_)[index]; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Json& operator[](T index) { return (*this)[std::size_t(index)]; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  const Json& operator[](T index) const { return (*this)[std::size_t(index)]; }
  void push_back(Json value);
  template <class... Args>
  void emplace_back(Args&&... args) { push_back(Json(std::forward<Args>(args)...)); }

  // Compact JSON text. Non-finite numbers are null (as JSON.stringify writes them); bytes that
  // are not UTF-8 are U+FFFD; binary values are arrays of their bytes.
  std::string dump() const;

  friend bool operator==(const Json& a, const Json& b);
  friend bool operator!=(const Json& a, const Json& b) { return !(a == b); }

 private:
  enum Index : std::size_t { kNull, kBool, kNumber, kString, kArray, kObject, kBinary, kDiscarded };
  struct Discarded {
    bool operator==(const Discarded&) const { return true; }
  };
  explicit Json(Array values);
  explicit Json(Object members);
  explicit Json(Discarded discarded);
  void write(std::string& out) const;
  // begin() or end() of an array or object (both null otherwise), as iterator or const_iterator.
  template <class Iterator, class Self>
  static Iterator position(Self& self, bool past_end);
  friend class JsonParser;

  std::variant<std::nullptr_t, bool, double, std::string, Array, Object, binary_t, Discarded> value_;
};

struct Json::Member {
  std::string first;
  Json second;
  const std::string& key() const { return first; }
  Json& value() { return second; }
  const Json& value() const { return second; }
  bool operator==(const Member& other) const { return first == other.first && second == other.second; }
};

inline Json::Json(std::nullptr_t) {}
inline Json::Json(bool value) : value_(value) {}
template <class T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int>>
inline Json::Json(T value) : value_(double(value)) {}
inline Json::Json(const char* text) : value_(std::string(text)) {}
inline Json::Json(std::string text) : value_(std::move(text)) {}
inline Json::Json(std::string_view text) : value_(std::string(text)) {}
template <class List, class Item,
          std::enable_if_t<std::conjunction_v<std::negation<std::is_same<List, Json::Object>>,
                                              std::negation<std::is_convertible<List, std::string_view>>,
                                              std::is_constructible<Json, Item>>, int>>
inline Json::Json(const List& values) : value_(Array(values.begin(), values.end())) {}
inline Json::Json(Array values) : value_(std::move(values)) {}
inline Json::Json(Object members) : value_(std::move(members)) {}
inline Json::Json(Discarded discarded) : value_(discarded) {}

inline Json Json::array() { return Json(Array{}); }
inline Json Json::object() { return Json(Object{}); }

}  // namespace sampling_lab
