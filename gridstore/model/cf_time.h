// Copyright 2026 The GridStore Authors.
//
// CF time: the numbers of a time coordinate ("hours since 1970-01-01 00:00:00", calendar
// "360_day") to and from dates in that calendar, and dates to and from ISO 8601 text. Every CF
// calendar is supported: standard (= gregorian: Julian before 1582-10-15, Gregorian from then),
// proleptic_gregorian, julian, noleap (= 365_day), all_leap (= 366_day) and 360_day. Years are
// astronomical (year 0 exists, -1 is 2 BC), as in ISO 8601; instants are exact to the microsecond.
#ifndef GRIDSTORE_MODEL_CF_TIME_H_
#define GRIDSTORE_MODEL_CF_TIME_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/util/result.h"

namespace gridstore::grid {

enum class Calendar { kStandard, kProlepticGregorian, kJulian, kNoLeap, kAllLeap, k360Day };

// The CF name of a calendar ("standard", "proleptic_gregorian", ..., "360_day").
std::string_view CalendarName(Calendar calendar);
// A CF calendar attribute: any case, with the aliases gregorian, 365_day and 366_day; empty means
// standard (the CF default). InvalidArgument naming the value and the accepted ones otherwise
// ("none" included: such a time axis has no dates).
Result<Calendar> ParseCalendar(std::string_view name);

// A date and time of day in some calendar, in UTC.
struct CivilTime {
  int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..days in the month, in the calendar
  int hour = 0;
  int minute = 0;
  int64_t microsecond = 0;  // of the minute: 0..59,999,999

  bool operator==(const CivilTime&) const = default;
};

// True if the date exists in the calendar (2001-02-30 does in 360_day, 1582-10-10 does not in
// standard).
bool IsValidDate(Calendar calendar, int64_t year, int month, int day);

// Parses an ISO 8601 date-time: YYYY-MM-DD, optionally followed by T (or a space) and HH:MM,
// HH:MM:SS or HH:MM:SS.ffffff, optionally followed by Z or a UTC offset ±HH[:MM] (applied, so
// the result is UTC). A year may carry a sign and more than four digits. The date is checked
// against `calendar`. InvalidArgument quoting the text and saying what is wrong otherwise.
Result<CivilTime> ParseIsoTime(std::string_view text, Calendar calendar);
// "2001-01-16T12:00:00Z"; with ".ffffff" (trailing zeros trimmed) only if there is a fraction.
std::string FormatIsoTime(const CivilTime& time);
// The same text written at `out` (at least kMaxIsoTimeLength bytes, no NUL); returns its length.
inline constexpr size_t kMaxIsoTimeLength = 48;
size_t FormatIsoTime(const CivilTime& time, char* out);

// The units of a CF time coordinate: "UNIT since DATE" with a calendar.
class TimeUnits {
 public:
  // `units` as CF writes them: UNIT is seconds, minutes, hours or days (and their udunits
  // abbreviations: s, sec, min, h, hr, d, singular or plural); months are accepted only with the
  // 360_day calendar, where a month is 30 days. DATE is as ParseIsoTime takes it, also with one-
  // digit fields ("1-1-1") and a trailing "UTC". InvalidArgument naming what is wrong otherwise.
  static Result<TimeUnits> Parse(std::string_view units, std::string_view calendar);

  Calendar calendar() const { return calendar_; }
  const CivilTime& epoch() const { return epoch_; }
  // Microseconds per unit.
  int64_t unit_microseconds() const { return unit_us_; }

  // The date `value` units after the epoch, rounded to the microsecond. OutOfRange if `value` is
  // not finite or more than 95,000 years from the epoch.
  Result<CivilTime> ToCivil(double value) const;
  // The value of a date, in these units.
  double FromCivil(const CivilTime& time) const;
  // ToCivil rounded to the millisecond (the float noise of "hours since" values is not shown),
  // then FormatIsoTime; errors as ToCivil.
  Result<std::string> ToIso(double value) const;
  // The same text written at `out` (at least kMaxIsoTimeLength bytes); returns its length, 0
  // where ToIso would fail. No allocation: for answers that label many times.
  size_t ToIso(double value, char* out) const;
  // ParseIsoTime (in this calendar) then FromCivil.
  Result<double> FromIso(std::string_view text) const;

  // Labels many values in turn, as ToIso(value, out) does, keeping the date of the last day it
  // wrote: an hourly series has 24 labels a day, and the date was half of each label's cost.
  // `units` outlives the writer.
  class IsoWriter {
   public:
    explicit IsoWriter(const TimeUnits& units) : units_(units) {}
    size_t Write(double value, char* out);

   private:
    const TimeUnits& units_;
    int64_t day_ = 0;               // days since the calendar's day 0 of date_
    char date_[kMaxIsoTimeLength];  // "YYYY-MM-DD" of day_
    size_t date_length_ = 0;        // 0: nothing kept yet
  };

 private:
  Result<int64_t> OffsetMicros(double value) const;

  Calendar calendar_ = Calendar::kStandard;
  CivilTime epoch_;
  int64_t epoch_us_ = 0;  // the epoch as microseconds since the calendar's day 0
  int64_t unit_us_ = 1;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_CF_TIME_H_
