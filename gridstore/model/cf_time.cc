// Copyright 2026 The GridStore Authors.
#include "gridstore/model/cf_time.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

constexpr int64_t kMicrosPerMinute = 60'000'000;
constexpr int64_t kMicrosPerDay = 86'400'000'000;
// Dates are held as int64 microseconds: +-292,000 years; dates are kept well inside that.
constexpr int64_t kMaxYear = 100'000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Day of the year (0-based) counted from March 1, for a March-based month (0 = March).
int64_t DayOfMarchYear(int month) {
  const int mp = month > 2 ? month - 3 : month + 9;
  return (153 * mp + 2) / 5;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t GregorianDays(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + DayOfMarchYear(m) + d - 1;
  return era * 146097 + doe - 719468;
}

// The same count for a Julian-calendar date, aligned so that Julian 1582-10-04 is the day before
// Gregorian 1582-10-15.
int64_t JulianRaw(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 4);
  const int64_t yoe = y - era * 4;
  return era * 1461 + yoe * 365 + DayOfMarchYear(m) + d - 1;
}
const int64_t kJulianShift = GregorianDays(1582, 10, 14) - JulianRaw(1582, 10, 4);
int64_t JulianDays(int64_t y, int m, int d) { return JulianRaw(y, m, d) + kJulianShift; }
const int64_t kReformDay = GregorianDays(1582, 10, 15);

struct Date {
  int64_t year;
  int month, day;
};

// Inverse of the March-based counts: the date `doe` days into a March-based year `y`.
Date FromMarchYear(int64_t y, int64_t doy) {
  const int64_t mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {y + (m <= 2), m, d};
}

Date GregorianDate(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  return FromMarchYear(yoe + era * 400, doy);
}

Date JulianDate(int64_t days) {
  days -= kJulianShift;
  const int64_t era = FloorDiv(days, 1461);
  const int64_t doe = days - era * 1461;
  const int64_t yoe = std::min<int64_t>(doe / 365, 3);
  return FromMarchYear(era * 4 + yoe, doe - yoe * 365);
}

constexpr std::array<int, 12> kMonthDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

bool GregorianLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
bool JulianLeap(int64_t y) { return y % 4 == 0; }

int MonthLength(Calendar calendar, int64_t year, int month) {
  if (calendar == Calendar::k360Day) return 30;
  if (month != 2) return kMonthDays[month - 1];
  switch (calendar) {
    case Calendar::kNoLeap:
      return 28;
    case Calendar::kAllLeap:
      return 29;
    case Calendar::kJulian:
      return JulianLeap(year) ? 29 : 28;
    case Calendar::kProlepticGregorian:
      return GregorianLeap(year) ? 29 : 28;
    default:
      return (year < 1582 ? JulianLeap(year) : GregorianLeap(year)) ? 29 : 28;
  }
}

// Days before `month` in a fixed-length-year calendar.
int64_t DaysBeforeMonth(Calendar calendar, int month) {
  int64_t days = 0;
  for (int m = 1; m < month; ++m) days += MonthLength(calendar, 0, m);
  return days;
}

// Days since the calendar's day 0 (1970-01-01 for the real calendars, 0000-01-01 for the
// idealised ones). REQUIRES: IsValidDate.
int64_t DaysOf(Calendar calendar, int64_t y, int m, int d) {
  switch (calendar) {
    case Calendar::kProlepticGregorian:
      return GregorianDays(y, m, d);
    case Calendar::kJulian:
      return JulianDays(y, m, d);
    case Calendar::kStandard: {
      const int64_t g = GregorianDays(y, m, d);
      return g >= kReformDay ? g : JulianDays(y, m, d);
    }
    case Calendar::kNoLeap:
      return y * 365 + DaysBeforeMonth(calendar, m) + d - 1;
    case Calendar::kAllLeap:
      return y * 366 + DaysBeforeMonth(calendar, m) + d - 1;
    case Calendar::k360Day:
      return y * 360 + (m - 1) * 30 + d - 1;
  }
  return 0;
}

Date DateOf(Calendar calendar, int64_t days) {
  int64_t year_length = 0;
  switch (calendar) {
    case Calendar::kProlepticGregorian:
      return GregorianDate(days);
    case Calendar::kJulian:
      return JulianDate(days);
    case Calendar::kStandard:
      return days >= kReformDay ? GregorianDate(days) : JulianDate(days);
    case Calendar::kNoLeap:
      year_length = 365;
      break;
    case Calendar::kAllLeap:
      year_length = 366;
      break;
    case Calendar::k360Day:
      year_length = 360;
      break;
  }
  const int64_t year = FloorDiv(days, year_length);
  int64_t doy = days - year * year_length;
  int month = 1;
  while (doy >= MonthLength(calendar, year, month)) doy -= MonthLength(calendar, year, month++);
  return {year, month, static_cast<int>(doy + 1)};
}

int64_t MicrosOf(Calendar calendar, const CivilTime& t) {
  return DaysOf(calendar, t.year, t.month, t.day) * kMicrosPerDay +
         (t.hour * 60 + t.minute) * kMicrosPerMinute + t.microsecond;
}

CivilTime CivilOf(Calendar calendar, int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const int64_t in_day = micros - days * kMicrosPerDay;
  const Date date = DateOf(calendar, days);
  CivilTime t;
  t.year = date.year;
  t.month = date.month;
  t.day = date.day;
  t.hour = static_cast<int>(in_day / (60 * kMicrosPerMinute));
  t.minute = static_cast<int>(in_day / kMicrosPerMinute % 60);
  t.microsecond = in_day % kMicrosPerMinute;
  return t;
}

// A small cursor over the text being parsed.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  bool done() const { return pos_ == text_.size(); }
  char peek() const { return done() ? '\0' : text_[pos_]; }
  bool Consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  // Digits [min_digits, max_digits] as a number; false if fewer than min_digits.
  bool Number(int min_digits, int max_digits, int64_t* value, int* digits = nullptr) {
    int n = 0;
    *value = 0;
    while (n < max_digits && std::isdigit(static_cast<unsigned char>(peek()))) {
      *value = *value * 10 + (text_[pos_++] - '0');
      ++n;
    }
    if (digits != nullptr) *digits = n;
    return n >= min_digits;
  }
  void SkipSpaces() {
    while (peek() == ' ') ++pos_;
  }
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

// Parses [T| ]HH:MM[:SS[.f]] into *t and a zone [Z|±HH[:MM]|UTC] into *offset_minutes.
Status ParseTimeOfDay(Scanner& s, bool lenient, CivilTime* t, int64_t* offset_minutes) {
  const int min_digits = lenient ? 1 : 2;
  int64_t hour = 0, minute = 0, second = 0;
  if (!s.Number(min_digits, 2, &hour) || !s.Consume(':') || !s.Number(min_digits, 2, &minute)) {
    return Status::InvalidArgument("the time of day is not HH:MM[:SS]");
  }
  int64_t micros = 0;
  if (s.Consume(':')) {
    if (!s.Number(min_digits, 2, &second)) return Status::InvalidArgument("the seconds are not SS");
    if (s.Consume('.')) {
      int64_t fraction = 0;
      int digits = 0;
      if (!s.Number(1, 6, &fraction, &digits))
        return Status::InvalidArgument("no digits after the decimal point of the seconds");
      while (digits++ < 6) fraction *= 10;
      int64_t more = 0;
      s.Number(0, 30, &more);  // digits beyond the microsecond are dropped
      micros = fraction;
    }
  }
  if (hour > 24 || minute > 59 || second > 60 || (hour == 24 && (minute | second | micros))) {
    return Status::InvalidArgument("the time of day is out of range");
  }
  t->hour = static_cast<int>(hour);
  t->minute = static_cast<int>(minute);
  t->microsecond = second * 1'000'000 + micros;
  s.SkipSpaces();
  *offset_minutes = 0;
  if (s.Consume('Z') || s.rest() == "UTC" || s.rest() == "utc") return Status::OK();
  const char sign = s.peek();
  if (sign != '+' && sign != '-') return Status::OK();
  s.Consume(sign);
  int64_t oh = 0, om = 0;
  if (!s.Number(1, 2, &oh)) return Status::InvalidArgument("the UTC offset is not ±HH[:MM]");
  if (s.Consume(':')) {
    if (!s.Number(2, 2, &om)) return Status::InvalidArgument("the UTC offset is not ±HH:MM");
  } else {
    s.Number(2, 2, &om);  // ±HHMM
  }
  *offset_minutes = (sign == '-' ? -1 : 1) * (oh * 60 + om);
  return Status::OK();
}

Result<CivilTime> ParseDateTime(std::string_view text, Calendar calendar, bool lenient) {
  const std::string quoted = Quote(text);
  Scanner s(text);
  CivilTime t;
  const bool negative = s.Consume('-');
  if (!negative) s.Consume('+');
  const int min_digits = lenient ? 1 : 2;
  int64_t year = 0, month = 0, day = 0;
  if (!s.Number(lenient ? 1 : 4, 10, &year) || !s.Consume('-') ||
      !s.Number(min_digits, 2, &month) || !s.Consume('-') || !s.Number(min_digits, 2, &day)) {
    return Status::InvalidArgument("time " + quoted + " is not an ISO 8601 date (YYYY-MM-DD)");
  }
  year = negative ? -year : year;
  if (month < 1 || month > 12 || day < 1 ||
      !IsValidDate(calendar, year, static_cast<int>(month), static_cast<int>(day))) {
    return Status::InvalidArgument("time " + quoted + ": there is no such date in the " +
                                   std::string(CalendarName(calendar)) + " calendar");
  }
  t.year = year;
  t.month = static_cast<int>(month);
  t.day = static_cast<int>(day);
  int64_t offset_minutes = 0;
  if (s.Consume('T') || s.Consume(' ')) {
    s.SkipSpaces();
    if (!s.done()) {
      Status st = ParseTimeOfDay(s, lenient, &t, &offset_minutes);
      if (!st.ok())
        return Status::InvalidArgument("time " + quoted + ": " + std::string(st.message()));
    }
  }
  s.SkipSpaces();
  if (!s.done() && !(lenient && (s.rest() == "UTC" || s.rest() == "utc"))) {
    return Status::InvalidArgument("time " + quoted + ": unexpected " + Quote(s.rest()) +
                                   " after the date and time");
  }
  if (offset_minutes != 0)
    t = CivilOf(calendar, MicrosOf(calendar, t) - offset_minutes * kMicrosPerMinute);
  return t;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Microseconds per unit for a udunits time unit name; 0 if unknown.
int64_t UnitMicros(const std::string& unit, Calendar calendar) {
  static const std::array<std::pair<const char*, int64_t>, 16> kUnits = {{
      {"microseconds", 1},
      {"microsecond", 1},
      {"milliseconds", 1000},
      {"millisecond", 1000},
      {"seconds", 1'000'000},
      {"second", 1'000'000},
      {"secs", 1'000'000},
      {"sec", 1'000'000},
      {"s", 1'000'000},
      {"minutes", kMicrosPerMinute},
      {"minute", kMicrosPerMinute},
      {"mins", kMicrosPerMinute},
      {"min", kMicrosPerMinute},
      {"hours", 60 * kMicrosPerMinute},
      {"hour", 60 * kMicrosPerMinute},
      {"days", kMicrosPerDay},
  }};
  for (const auto& [name, micros] : kUnits) {
    if (unit == name) return micros;
  }
  if (unit == "hrs" || unit == "hr" || unit == "h") return 60 * kMicrosPerMinute;
  if (unit == "day" || unit == "d") return kMicrosPerDay;
  if ((unit == "months" || unit == "month") && calendar == Calendar::k360Day) {
    return 30 * kMicrosPerDay;
  }
  return 0;
}

}  // namespace

std::string_view CalendarName(Calendar calendar) {
  switch (calendar) {
    case Calendar::kStandard:
      return "standard";
    case Calendar::kProlepticGregorian:
      return "proleptic_gregorian";
    case Calendar::kJulian:
      return "julian";
    case Calendar::kNoLeap:
      return "noleap";
    case Calendar::kAllLeap:
      return "all_leap";
    case Calendar::k360Day:
      return "360_day";
  }
  return "?";
}

Result<Calendar> ParseCalendar(std::string_view name) {
  const std::string n = Lower(name);
  if (n.empty() || n == "standard" || n == "gregorian") return Calendar::kStandard;
  if (n == "proleptic_gregorian") return Calendar::kProlepticGregorian;
  if (n == "julian") return Calendar::kJulian;
  if (n == "noleap" || n == "365_day") return Calendar::kNoLeap;
  if (n == "all_leap" || n == "366_day") return Calendar::kAllLeap;
  if (n == "360_day") return Calendar::k360Day;
  return Status::InvalidArgument(
      "calendar " + Quote(name) +
      " is not a CF calendar with dates (expected standard, gregorian, proleptic_gregorian, "
      "julian, noleap, 365_day, all_leap, 366_day or 360_day)");
}

bool IsValidDate(Calendar calendar, int64_t year, int month, int day) {
  if (month < 1 || month > 12 || day < 1 || year < -kMaxYear || year > kMaxYear) return false;
  if (day > MonthLength(calendar, year, month)) return false;
  // The ten days the Gregorian reform skipped.
  return !(calendar == Calendar::kStandard && year == 1582 && month == 10 && day > 4 && day < 15);
}

Result<CivilTime> ParseIsoTime(std::string_view text, Calendar calendar) {
  return ParseDateTime(text, calendar, /*lenient=*/false);
}

namespace {

// `digits` decimal digits of `v` (0 <= v < 10^digits) at `out`, zero-padded.
char* PutDigits(int64_t v, int digits, char* out) {
  for (int i = digits - 1; i >= 0; --i, v /= 10) out[i] = static_cast<char>('0' + v % 10);
  return out + digits;
}

// "YYYY-MM-DD" (a year of more than four digits, or negative, as it is).
char* PutDate(const CivilTime& t, char* p) {
  if (t.year < 0) *p++ = '-';
  const int64_t year = t.year < 0 ? -t.year : t.year;
  int year_digits = 4;
  for (int64_t y = year / 10000; y > 0; y /= 10) ++year_digits;
  p = PutDigits(year, year_digits, p);
  *p++ = '-';
  p = PutDigits(t.month, 2, p);
  *p++ = '-';
  return PutDigits(t.day, 2, p);
}

// "THH:MM:SSZ", with ".ffffff" (trailing zeros trimmed) before the Z if there is a fraction.
char* PutTimeOfDay(const CivilTime& t, char* p) {
  *p++ = 'T';
  p = PutDigits(t.hour, 2, p);
  *p++ = ':';
  p = PutDigits(t.minute, 2, p);
  *p++ = ':';
  p = PutDigits(t.microsecond / 1'000'000, 2, p);
  if (int64_t micros = t.microsecond % 1'000'000; micros != 0) {
    int digits = 6;
    while (micros % 10 == 0) micros /= 10, --digits;  // trailing zeros trimmed
    *p++ = '.';
    p = PutDigits(micros, digits, p);
  }
  *p++ = 'Z';
  return p;
}

}  // namespace

size_t FormatIsoTime(const CivilTime& t, char* out) {
  // By hand, not snprintf: a 40-year hourly series labels 350,640 times in one answer.
  return size_t(PutTimeOfDay(t, PutDate(t, out)) - out);
}

std::string FormatIsoTime(const CivilTime& t) {
  char buf[kMaxIsoTimeLength];
  return std::string(buf, FormatIsoTime(t, buf));
}

Result<TimeUnits> TimeUnits::Parse(std::string_view units, std::string_view calendar) {
  TimeUnits result;
  GRIDSTORE_ASSIGN_OR_RETURN(result.calendar_, ParseCalendar(calendar));
  const std::string text = Lower(units);
  const size_t since = text.find(" since ");
  if (since == std::string::npos) {
    return Status::InvalidArgument("time units " + Quote(units) + " are not \"UNIT since DATE\"");
  }
  std::string unit = text.substr(0, since);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  result.unit_us_ = UnitMicros(unit, result.calendar_);
  if (result.unit_us_ == 0) {
    return Status::InvalidArgument(
        "time units " + Quote(units) + ": unit " + Quote(unit) +
        " is not a time unit with a fixed length (expected seconds, minutes, hours or days; "
        "months only with the 360_day calendar)");
  }
  std::string_view date = std::string_view(units).substr(since + 7);
  while (!date.empty() && date.front() == ' ') date.remove_prefix(1);
  while (!date.empty() && date.back() == ' ') date.remove_suffix(1);
  auto epoch = ParseDateTime(date, result.calendar_, /*lenient=*/true);
  if (!epoch.ok()) {
    return Status::InvalidArgument("time units " + Quote(units) + ": " +
                                   std::string(epoch.status().message()));
  }
  result.epoch_ = *epoch;
  result.epoch_us_ = MicrosOf(result.calendar_, result.epoch_);
  return result;
}

Result<int64_t> TimeUnits::OffsetMicros(double value) const {
  const double offset = value * static_cast<double>(unit_us_);
  constexpr double kLimit = 3e18;  // microseconds: about 95,000 years
  if (!std::isfinite(value) || std::fabs(offset) > kLimit) {
    return Status::OutOfRange("time value " + FormatDouble(value) +
                              " is not a date (not finite, or more than 95,000 years from the "
                              "epoch)");
  }
  return std::llround(offset);
}

Result<CivilTime> TimeUnits::ToCivil(double value) const {
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t offset, OffsetMicros(value));
  return CivilOf(calendar_, epoch_us_ + offset);
}

double TimeUnits::FromCivil(const CivilTime& time) const {
  const int64_t micros = MicrosOf(calendar_, time) - epoch_us_;
  // Whole units exactly, then the remainder: exact for every value a double holds exactly.
  const int64_t whole = FloorDiv(micros, unit_us_);
  return static_cast<double>(whole) +
         static_cast<double>(FloorMod(micros, unit_us_)) / static_cast<double>(unit_us_);
}

Result<std::string> TimeUnits::ToIso(double value) const {
  char buf[kMaxIsoTimeLength];
  const size_t n = ToIso(value, buf);
  if (n == 0) return OffsetMicros(value).status();
  return std::string(buf, n);
}

size_t TimeUnits::ToIso(double value, char* out) const {
  return IsoWriter(*this).Write(value, out);
}

size_t TimeUnits::IsoWriter::Write(double value, char* out) {
  auto offset = units_.OffsetMicros(value);
  if (!offset.ok()) return 0;
  // To the millisecond: 347921.1666667 hours is 17:30:00, not 17:29:59.999987.
  const int64_t micros = units_.epoch_us_ + FloorDiv(*offset + 500, 1000) * 1000;
  const int64_t day = FloorDiv(micros, kMicrosPerDay);
  if (day != day_ || date_length_ == 0) {
    date_length_ = size_t(PutDate(CivilOf(units_.calendar_, day * kMicrosPerDay), date_) - date_);
    day_ = day;
  }
  std::memcpy(out, date_, date_length_);
  // The time of day: CivilOf's fields, without the date it would compute again.
  const int64_t in_day = micros - day * kMicrosPerDay;
  CivilTime t;
  t.hour = static_cast<int>(in_day / (60 * kMicrosPerMinute));
  t.minute = static_cast<int>(in_day / kMicrosPerMinute % 60);
  t.microsecond = in_day % kMicrosPerMinute;
  return size_t(PutTimeOfDay(t, out + date_length_) - out);
}

Result<double> TimeUnits::FromIso(std::string_view text) const {
  GRIDSTORE_ASSIGN_OR_RETURN(CivilTime t, ParseIsoTime(text, calendar_));
  return FromCivil(t);
}

}  // namespace gridstore::grid
