#include "ir/attr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/check.h"

namespace shrew::ir {

int64_t AttrValue::as_int() const {
  SHREW_CHECK(is_int());
  return std::get<int64_t>(v_);
}

double AttrValue::as_float() const {
  if (is_int()) return static_cast<double>(std::get<int64_t>(v_));
  SHREW_CHECK(is_float());
  return std::get<double>(v_);
}

bool AttrValue::as_bool() const {
  SHREW_CHECK(is_bool());
  return std::get<bool>(v_);
}

const std::string& AttrValue::as_string() const {
  SHREW_CHECK(is_string());
  return std::get<std::string>(v_);
}

const std::vector<int64_t>& AttrValue::as_int_list() const {
  SHREW_CHECK(is_int_list());
  return std::get<std::vector<int64_t>>(v_);
}

const std::vector<double>& AttrValue::as_float_list() const {
  SHREW_CHECK(is_float_list());
  return std::get<std::vector<double>>(v_);
}

const std::vector<Dim>& AttrValue::as_shape() const {
  SHREW_CHECK(is_shape());
  return std::get<std::vector<Dim>>(v_);
}

const std::vector<AttrValue>& AttrValue::as_list() const {
  SHREW_CHECK(is_list());
  return std::get<std::vector<AttrValue>>(v_);
}

namespace {

// Fixed notation of the decimal digits `digits` (d1 d2 … dn) times 10^exp
// where the value is d1.d2…dn × 10^exp.
std::string FixedForm(const std::string& digits, int exp) {
  const int n = static_cast<int>(digits.size());
  if (exp >= n - 1) return digits + std::string(static_cast<size_t>(exp - (n - 1)), '0');
  if (exp >= 0) {
    return digits.substr(0, static_cast<size_t>(exp + 1)) + "." +
           digits.substr(static_cast<size_t>(exp + 1));
  }
  return "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
}

// printf-style %e with the digits given: "1e-05", "1.5e+20".
std::string ExpForm(const std::string& digits, int exp) {
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  out += exp < 0 ? "e-" : "e+";
  int a = exp < 0 ? -exp : exp;
  if (a < 10) out += '0';
  return out + std::to_string(a);
}

}  // namespace

// Shortest round-trip form, matching std::to_chars(double) without a format
// (fixed or exponential, whichever is shorter, fixed on ties). Written with
// snprintf/strtod because Emscripten 3.1.6's libc++ has no floating-point
// to_chars.
namespace {

// Whether the decimal text reads back as `v` (as an f32 when `as_float`).
bool ReadsBack(const char* text, double v, bool as_float) {
  return as_float ? std::strtof(text, nullptr) == static_cast<float>(v) : std::strtod(text, nullptr) == v;
}

// The shortest digits that read back as `v` (in f32 when `as_float`).
std::string FormatShortest(double v, bool as_float) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  std::string digits;
  int exp = 0;
  const int most = as_float ? 9 : 17;
  for (int precision = 1; precision <= most; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, std::fabs(v));
    // buf: d[.ddd]e[+-]XX, the nearest `precision` digits.
    const char* p = buf;
    digits.clear();
    for (; *p && *p != 'e'; ++p) {
      if (*p != '.') digits += *p;
    }
    exp = static_cast<int>(std::strtol(p + 1, nullptr, 10));
    if (ReadsBack(buf, std::fabs(v), as_float) || precision == most) break;
    // Next to a power of two the values that read back lie more on one
    // side: one step up or down in the last digit may, where the nearest
    // does not (1.2621775e-29 for 2^-96 as f32, whose nearest 8 digits
    // are 1.2621774e-29). At most one of the two can.
    const uint64_t d = std::strtoull(digits.c_str(), nullptr, 10);
    const uint64_t low = precision == 1 ? 1 : static_cast<uint64_t>(std::pow(10.0, precision - 1));
    bool found = false;
    for (const int step : {1, -1}) {
      uint64_t n = d + static_cast<uint64_t>(step);
      int e = exp;
      if (n == low * 10) n = low, ++e;          // 9.99 up: 1.00e+1
      if (n < low) n = low * 10 - 1, --e;       // 1.00 down: 9.99e-1
      std::string nd = std::to_string(n);
      std::snprintf(buf, sizeof(buf), "%s.%se%d", nd.substr(0, 1).c_str(), nd.substr(1).c_str(), e);
      if (ReadsBack(buf, std::fabs(v), as_float)) {
        digits = std::move(nd);
        exp = e;
        found = true;
        break;
      }
    }
    if (found) break;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string fixed = FixedForm(digits, exp);
  std::string sci = ExpForm(digits, exp);
  if (sci.size() < fixed.size()) return v < 0 ? "-" + sci : sci;
  // An integral value in fixed form prints its exact digits, as to_chars
  // does (12003693070755665920, not 12003693070755666000); same length.
  if (exp >= static_cast<int>(digits.size()) - 1) {
    std::snprintf(buf, sizeof(buf), "%.0f", v);
    return buf;
  }
  return v < 0 ? "-" + fixed : fixed;
}

}  // namespace

std::string FormatDouble(double v) { return FormatShortest(v, false); }
std::string FormatFloat(float v) { return FormatShortest(v, true); }

std::string AttrValue::ToString() const {
  switch (kind()) {
    case AttrKind::kInt: return std::to_string(as_int());
    case AttrKind::kFloat: return FormatDouble(std::get<double>(v_));
    case AttrKind::kBool: return as_bool() ? "true" : "false";
    case AttrKind::kString: return as_string();
    case AttrKind::kIntList: {
      std::string out = "[";
      const auto& l = as_int_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) out += ", ";
        out += std::to_string(l[i]);
      }
      return out + "]";
    }
    case AttrKind::kFloatList: {
      std::string out = "[";
      const auto& l = as_float_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) out += ", ";
        out += FormatDouble(l[i]);
      }
      return out + "]";
    }
    case AttrKind::kShape: {
      std::string out = "[";
      const auto& l = as_shape();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) out += ", ";
        out += l[i].is_dynamic() ? std::string("-1") : l[i].ToString();
      }
      return out + "]";
    }
    case AttrKind::kAll: return "all";
    case AttrKind::kList: {
      std::string out = "[";
      const auto& l = as_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) out += ", ";
        out += l[i].is_string() ? "\"" + l[i].as_string() + "\"" : l[i].ToString();
      }
      return out + "]";
    }
  }
  return "";
}

namespace {
bool SameDouble(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}
}  // namespace

bool operator==(const AttrValue& a, const AttrValue& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is_float()) return SameDouble(std::get<double>(a.v_), std::get<double>(b.v_));
  if (a.is_float_list()) {
    const auto& x = a.as_float_list();
    const auto& y = b.as_float_list();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!SameDouble(x[i], y[i])) return false;
    }
    return true;
  }
  return a.v_ == b.v_;
}

void Attrs::Set(std::string_view name, AttrValue value) {
  for (Entry& e : entries_) {
    if (e.first == name) {
      e.second = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::string(name), std::move(value));
}

const AttrValue* Attrs::Find(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.first == name) return &e.second;
  }
  return nullptr;
}

bool Attrs::Remove(std::string_view name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == name) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace shrew::ir
