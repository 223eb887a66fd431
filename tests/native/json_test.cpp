// The experiments' JSON: numbers read exactly as glibc's strtod reads them (bit for bit, on
// shortest, 17-digit, long, halfway, subnormal and overflowing texts), written so that they read
// back to the same double, and the RFC 8259 grammar with its UTF-8 and depth limits.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "sampling_lab/json.hpp"

namespace json_test {

namespace sl = sampling_lab;

namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double from_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// Asserts that the parser reads `text` to strtod's double.
void expect_strtod(const std::string& text) {
  const sl::Json parsed = sl::Json::parse(text);
  ASSERT_TRUE(parsed.is_number()) << text;
  EXPECT_EQ(bits(parsed.get<double>()), bits(std::strtod(text.c_str(), nullptr))) << text;
}

// A finite double with uniformly random bits.
double random_double(std::mt19937_64& random) {
  for (;;) {
    const double x = from_bits(random());
    if (std::isfinite(x)) return x;
  }
}

std::string shortest(double x) {
  char text[64];
  return {text, std::to_chars(text, text + sizeof text, x).ptr};
}

std::string printed(const char* format, double x) {
  char text[1200];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

}  // namespace

TEST(JsonNumbers, ReadRandomDoublesAsStrtodDoes) {
  std::mt19937_64 random(19);
  for (int i = 0; i < 100'000; ++i) {
    const double x = random_double(random);
    expect_strtod(shortest(x));
    expect_strtod(printed("%.17g", x));
    expect_strtod(printed("%.25e", x));
  }
}

TEST(JsonNumbers, ReadHalfwayPointsAndTheirNeighboursAsStrtodDoes) {
  // The exact decimal of the midpoint between x and the next double ties; one more digit 1 or a
  // last digit one lower breaks the tie either way, at every magnitude including subnormals.
  std::mt19937_64 random(23);
  for (int i = 0; i < 3'000; ++i) {
    const double x = std::abs(random_double(random));
    const double next = std::nextafter(x, HUGE_VAL);
    if (!std::isfinite(next)) continue;
    const long double middle = (static_cast<long double>(x) + next) / 2;
    char text[1200];
    std::snprintf(text, sizeof text, "%.800Le", middle);
    std::string exact = text;
    const auto e = exact.find('e');
    std::string mantissa = exact.substr(0, e);
    const std::string exponent = exact.substr(e);
    mantissa.erase(mantissa.find_last_not_of('0') + 1);
    expect_strtod(mantissa + exponent);
    expect_strtod(mantissa + "1" + exponent);
    std::string lower = mantissa;
    std::size_t at = lower.size() - 1;
    while (lower[at] == '0') lower[at--] = '9';
    if (lower[at] != '.') --lower[at];
    expect_strtod(lower + exponent);
  }
}

TEST(JsonNumbers, ReadRandomDigitStringsAndEdgesAsStrtodDoes) {
  std::mt19937_64 random(29);
  for (int i = 0; i < 30'000; ++i) {
    std::string text = random() % 2 ? "-" : "";
    const int digits = 1 + int(random() % 40);
    text += char('1' + random() % 9);
    for (int d = 1; d < digits; ++d) text += char('0' + random() % 10);
    if (random() % 2) text.insert(text.size() - std::size_t(random() % std::size_t(digits)), ".");
    if (text.back() == '.') text += '0';
    text += "e" + std::to_string(int(random() % 700) - 370);
    expect_strtod(text);
  }
  for (const std::string text : {"0", "-0", "0.0", "1e-400", "-1e-400", "1e400", "-1e400", "2.4703282292062327e-324",
                                 "2.4703282292062328e-324", "4.9406564584124654e-324", "2.2250738585072011e-308",
                                 "2.2250738585072014e-308", "1.7976931348623157e308", "1.7976931348623158e308",
                                 "1.7976931348623159e308", "9007199254740993", "9007199254740995", "0.1", "123456789012345678901234567890",
                                 "1e23", "8.98846567431158e307", "0.000001e-320", "1e99999999999999999999", "1e-99999999999999999999",
                                 "0e99999999"}) {
    expect_strtod(text);
  }
  // Past 800 significant digits only whether the rest is zero counts.
  expect_strtod("1" + std::string(1000, '0') + "1e-1000");
  expect_strtod("0." + std::string(900, '0') + "1e900");
}

TEST(JsonNumbers, WriteTextsThatReadBackToTheSameDouble) {
  std::mt19937_64 random(31);
  for (int i = 0; i < 100'000; ++i) {
    const double x = random_double(random);
    const std::string text = sl::Json(x).dump();
    EXPECT_EQ(bits(sl::Json::parse(text).get<double>()), bits(x)) << text;
  }
  EXPECT_EQ(sl::Json(151936).dump(), "151936");
  EXPECT_EQ(sl::Json(-3.0).dump(), "-3");
  EXPECT_EQ(sl::Json(9007199254740992.0).dump(), "9007199254740992");
  EXPECT_EQ(sl::Json(0.1).dump(), "0.1");
  EXPECT_EQ(sl::Json(NAN).dump(), "null");
  EXPECT_EQ(sl::Json(-INFINITY).dump(), "null");
}

TEST(JsonText, ReadsTheGrammarAndRefusesTheRest) {
  const sl::Json value = sl::Json::parse(R"( {"a": [1, -2.5e3, true, false, null], "b": {"c": "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}, "a": 7} )");
  ASSERT_TRUE(value.is_object());
  EXPECT_EQ(value["a"], 7);  // a repeated key keeps its last value, as JSON.parse does
  EXPECT_EQ(value["b"]["c"].get<std::string>(), "x\"\\/\b\f\n\r\t\u00e9\U0001F600");
  EXPECT_EQ(value.dump(), R"({"a":7,"b":{"c":"x\"\\/\u0008\u000c\n\r\t)" "\u00e9\U0001F600" R"("}})");
  for (const std::string bad : {"", " ", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "[1 2]", "{\"a\" 1}", "{a:1}",
                                "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\nb\"", "nul", "[1]x", "\"\xff\"", "\"\xc0\x80\"",
                                "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "NaN", "Infinity"}) {
    EXPECT_TRUE(sl::Json::parse(bad).is_discarded()) << bad;
  }
  EXPECT_TRUE(sl::Json::parse(std::string(64, '[') + std::string(64, ']')).is_array());
  EXPECT_TRUE(sl::Json::parse(std::string(65, '[') + std::string(65, ']')).is_discarded());
  // Bytes that are not UTF-8 in a string the code built are written as U+FFFD.
  EXPECT_EQ(sl::Json("a\xff" "b").dump(), "\"a\xEF\xBF\xBD" "b\"");
}

TEST(JsonText, BuildsObjectsFromPairsAndArraysFromAnythingElse) {
  const sl::Json object = {{"b", 1}, {"a", {1, 2}}};
  ASSERT_TRUE(object.is_object());
  EXPECT_EQ(object.dump(), R"({"b":1,"a":[1,2]})");
  EXPECT_EQ(sl::Json({1, "a"}).dump(), R"([1,"a"])");
  EXPECT_EQ(sl::Json(std::vector<double>{0.5, 2}).dump(), "[0.5,2]");
  sl::Json built;
  built["x"]["y"] = true;
  built["list"].push_back(nullptr);
  built.update({{"x", 3}});
  EXPECT_EQ(built.dump(), R"({"x":3,"list":[null]})");
  built.erase("x");
  EXPECT_FALSE(built.contains("x"));
  EXPECT_EQ(sl::Json::binary({1, 2, 250}, 3).dump(), "[1,2,250]");
}

}  // namespace json_test
