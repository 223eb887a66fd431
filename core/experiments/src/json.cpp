#include "sampling_lab/json.hpp"

#include <algorithm>

namespace sampling_lab {

namespace {

bool is_pair(const Json& value) { return value.is_array() && value.size() == 2 && (*value.begin()).is_string(); }

}  // namespace

Json::Json(const Json& other) = default;
Json::Json(Json&& other) noexcept = default;
Json& Json::operator=(const Json& other) = default;
Json& Json::operator=(Json&& other) noexcept = default;
Json::~Json() = default;

Json::Json(std::initializer_list<Json> values) {
  if (values.size() > 0 && std::all_of(values.begin(), values.end(), is_pair)) {
    Object members;
    for (const Json& pair : values) {
      const Array& both = std::get<Array>(pair.value_);
      members.push_back({std::get<std::string>(both[0].value_), both[1]});
    }
    value_ = std::move(members);
  } else {
    value_ = Array(values.begin(), values.end());
  }
}

Json Json::binary(std::vector<std::uint8_t> bytes, std::uint8_t subtype) {
  Json json;
  binary_t binary;
  static_cast<std::vector<std::uint8_t>&>(binary) = std::move(bytes);
  binary.kind = subtype;
  json.value_ = std::move(binary);
  return json;
}


template <class Iterator, class Self>
Iterator Json::position(Self& self, bool past_end) {
  if (auto* array = std::get_if<Array>(&self.value_)) return {array->data() + (past_end ? array->size() : 0), nullptr};
  if (auto* object = std::get_if<Object>(&self.value_)) return {nullptr, object->data() + (past_end ? object->size() : 0)};
  return {nullptr, nullptr};
}

Json::iterator Json::begin() { return position<iterator>(*this, false); }
Json::iterator Json::end() { return position<iterator>(*this, true); }
Json::const_iterator Json::begin() const { return position<const_iterator>(*this, false); }
Json::const_iterator Json::end() const { return position<const_iterator>(*this, true); }

std::size_t Json::size() const {
  if (auto* array = std::get_if<Array>(&value_)) return array->size();
  if (auto* object = std::get_if<Object>(&value_)) return object->size();
  return is_null() ? 0 : 1;
}

Json& Json::operator[](std::string_view key) {
  if (is_null()) value_ = Object{};
  Object& members = std::get<Object>(value_);
  for (Member& member : members) {
    if (member.first == key) return member.second;
  }
  members.push_back({std::string(key), nullptr});
  return members.back().second;
}

const Json& Json::operator[](std::string_view key) const {
  static const Json kNone;
  const auto found = find(key);
  return found == end() ? kNone : *found;
}

Json::iterator Json::find(std::string_view key) {
  if (auto* object = std::get_if<Object>(&value_)) {
    for (Member& member : *object) {
      if (member.first == key) return {nullptr, &member};
    }
  }
  return end();
}

Json::const_iterator Json::find(std::string_view key) const {
  if (auto* object = std::get_if<Object>(&value_)) {
    for (const Member& member : *object) {
      if (member.first == key) return {nullptr, &member};
    }
  }
  return end();
}

void Json::erase(std::string_view key) {
  Object& members = std::get<Object>(value_);
  members.erase(std::remove_if(members.begin(), members.end(), [&](const Member& m) { return m.first == key; }), members.end());
}

void Json::update(const Json& other) {
  for (const Member& member : other.items()) (*this)[member.first] = member.second;
}

void Json::push_back(Json value) {
  if (is_null()) value_ = Array{};
  std::get<Array>(value_).push_back(std::move(value));
}

bool operator==(const Json& a, const Json& b) { return a.value_ == b.value_; }

}  // namespace sampling_lab
