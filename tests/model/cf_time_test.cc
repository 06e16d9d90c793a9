// Copyright 2026 The GridStore Authors.
//
// CF time against hand-computed calendars. tests/model/cf_time_vs_cftime.py checks many random
// values against python3-cftime as well.
#include "gridstore/model/cf_time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gridstore::grid {
namespace {

std::string Iso(std::string_view units, std::string_view calendar, double value) {
  auto u = TimeUnits::Parse(units, calendar);
  EXPECT_TRUE(u.ok()) << u.status().ToString();
  if (!u.ok()) return "";
  auto iso = u->ToIso(value);
  EXPECT_TRUE(iso.ok()) << iso.status().ToString();
  return iso.ok() ? *iso : "";
}

double Value(std::string_view units, std::string_view calendar, std::string_view iso) {
  auto u = TimeUnits::Parse(units, calendar);
  EXPECT_TRUE(u.ok()) << u.status().ToString();
  auto v = u->FromIso(iso);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return v.ok() ? *v : -1;
}

TEST(CfTimeTest, TheRealFilesTimes) {
  // tos_O1_2001-2002.nc: 360_day, mid-month; ncdump -t prints 2001-01-16 and 2002-12-16.
  EXPECT_EQ(Iso("days since 2001-1-1", "360_day", 15), "2001-01-16T00:00:00Z");
  EXPECT_EQ(Iso("days since 2001-1-1", "360_day", 705), "2002-12-16T00:00:00Z");
  EXPECT_EQ(Iso("days since 2001-1-1", "360_day", 45 + 14), "2001-02-30T00:00:00Z");
  // small_theta_colpex.nc: float noise in "hours since" rounds away at the millisecond.
  EXPECT_EQ(Iso("hours since 1970-01-01 00:00:00", "gregorian", 347921.16666666669),
            "2009-09-09T17:10:00Z");
  EXPECT_EQ(Iso("hours since 1970-01-01 00:00:00", "gregorian", 347922), "2009-09-09T18:00:00Z");
  // SMALL_total_column_co2.nc: "00:00:0.0" (one-digit seconds) and no calendar.
  EXPECT_EQ(Iso("hours since 1900-01-01 00:00:0.0", "", 24), "1900-01-02T00:00:00Z");
}

TEST(CfTimeTest, CalendarsDifferWhereTheyShould) {
  // 2000 is a leap year in the Gregorian calendars, 1900 only in the Julian one.
  EXPECT_EQ(Iso("days since 2000-02-28", "standard", 1), "2000-02-29T00:00:00Z");
  EXPECT_EQ(Iso("days since 2000-02-28", "noleap", 1), "2000-03-01T00:00:00Z");
  EXPECT_EQ(Iso("days since 2001-02-28", "all_leap", 1), "2001-02-29T00:00:00Z");
  EXPECT_EQ(Iso("days since 1900-02-28", "proleptic_gregorian", 1), "1900-03-01T00:00:00Z");
  EXPECT_EQ(Iso("days since 1900-02-28", "julian", 1), "1900-02-29T00:00:00Z");
  EXPECT_EQ(Iso("days since 2000-01-01", "360_day", 360), "2001-01-01T00:00:00Z");
  EXPECT_EQ(Iso("days since 2000-01-01", "noleap", 365), "2001-01-01T00:00:00Z");
  EXPECT_EQ(Iso("days since 2000-01-01", "366_day", 366), "2001-01-01T00:00:00Z");
  // The Gregorian reform: Thursday 1582-10-04 (Julian) was followed by Friday 1582-10-15.
  EXPECT_EQ(Iso("days since 1582-10-04", "standard", 1), "1582-10-15T00:00:00Z");
  EXPECT_EQ(Iso("days since 1582-10-04", "proleptic_gregorian", 1), "1582-10-05T00:00:00Z");
  EXPECT_EQ(Iso("days since 1582-10-04", "julian", 1), "1582-10-05T00:00:00Z");
  // The Julian calendar runs 13 days behind the Gregorian in the 20th and 21st centuries.
  EXPECT_EQ(Iso("days since 1970-01-01", "julian", 0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Value("days since 1970-01-01", "proleptic_gregorian", "1970-01-14"), 13);
  EXPECT_EQ(Value("days since 1970-01-01", "standard", "1582-10-15") -
                Value("days since 1970-01-01", "standard", "1582-10-04"),
            1);
  // Hand count: 1970-01-01 to 2001-01-01 is 31 years with 8 leap days.
  EXPECT_EQ(Value("days since 1970-01-01", "standard", "2001-01-01"), 31 * 365 + 8);
  EXPECT_EQ(Value("seconds since 1970-01-01T00:00:00Z", "standard", "2026-11-25T03:17:40Z"),
            1795576660);
}

TEST(CfTimeTest, RoundTripsEveryCalendarBothWays) {
  for (std::string_view cal :
       {"standard", "proleptic_gregorian", "julian", "noleap", "all_leap", "360_day"}) {
    auto u = TimeUnits::Parse("hours since 1850-01-01", cal);
    ASSERT_TRUE(u.ok());
    for (double h = -3e6; h < 3e6; h += 7919.5) {
      auto iso = u->ToIso(h);
      ASSERT_TRUE(iso.ok());
      auto back = u->FromIso(*iso);
      ASSERT_TRUE(back.ok()) << *iso << ": " << back.status().ToString();
      EXPECT_EQ(*back, h) << cal << " " << *iso;
    }
  }
}

TEST(CfTimeTest, EpochForms) {
  EXPECT_EQ(Iso("days since 1-1-1", "julian", 0), "0001-01-01T00:00:00Z");
  EXPECT_EQ(Iso("Days Since 1970-01-01 00:00:00 UTC", "", 1), "1970-01-02T00:00:00Z");
  EXPECT_EQ(Iso("hours since 1970-01-01 06:00:00 +06:00", "", 0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(Iso("minutes since 1970-01-01T00:00:00Z", "", 90), "1970-01-01T01:30:00Z");
  EXPECT_EQ(Iso("seconds since 1970-01-01", "", 0.25), "1970-01-01T00:00:00.25Z");
  EXPECT_EQ(Iso("months since 2000-01-01", "360_day", 2), "2000-03-01T00:00:00Z");
  EXPECT_EQ(Iso("days since -0001-12-31", "proleptic_gregorian", 1), "0000-01-01T00:00:00Z");
}

TEST(CfTimeTest, BadInputIsNamed) {
  auto months = TimeUnits::Parse("months since 2000-01-01", "standard");
  ASSERT_FALSE(months.ok());
  EXPECT_NE(months.status().message().find("unit 'months'"), std::string::npos);
  auto no_since = TimeUnits::Parse("hours", "");
  ASSERT_FALSE(no_since.ok());
  EXPECT_NE(no_since.status().message().find("UNIT since DATE"), std::string::npos);
  auto cal = TimeUnits::Parse("days since 2000-01-01", "lunar");
  ASSERT_FALSE(cal.ok());
  EXPECT_NE(cal.status().message().find("calendar 'lunar'"), std::string::npos);
  auto feb30 = ParseIsoTime("2001-02-30", Calendar::kStandard);
  ASSERT_FALSE(feb30.ok());
  EXPECT_NE(feb30.status().message().find("no such date in the standard calendar"),
            std::string::npos);
  EXPECT_TRUE(ParseIsoTime("2001-02-30", Calendar::k360Day).ok());
  EXPECT_FALSE(ParseIsoTime("1582-10-10", Calendar::kStandard).ok());
  EXPECT_FALSE(ParseIsoTime("2001-01-01T25:00", Calendar::kStandard).ok());
  EXPECT_FALSE(ParseIsoTime("2001-01-01x", Calendar::kStandard).ok());
  EXPECT_FALSE(ParseIsoTime("01-01-01", Calendar::kStandard).ok());  // ISO needs 4 digits
  auto u = TimeUnits::Parse("days since 2000-01-01", "");
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->ToIso(1e300).status().IsOutOfRange());
  EXPECT_TRUE(u->ToIso(std::nan("")).status().IsOutOfRange());
}

TEST(CfTimeTest, IsoInputForms) {
  auto t = ParseIsoTime("2001-01-16T12:30:15.5+02:00", Calendar::kStandard);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(FormatIsoTime(*t), "2001-01-16T10:30:15.5Z");
  t = ParseIsoTime("2001-01-16 12:30", Calendar::kStandard);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(FormatIsoTime(*t), "2001-01-16T12:30:00Z");
  t = ParseIsoTime("2001-01-01T00:30-01", Calendar::kStandard);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(FormatIsoTime(*t), "2001-01-01T01:30:00Z");
}

// The hand-written formatter against the printf definition it replaced (years of 1 to 6
// digits, negative years, fractions of one to six digits), and ToIso into a buffer as ToIso.
TEST(CfTimeTest, IsoFormattingIsThePrintfDefinition) {
  for (int64_t year : {int64_t{-12345}, int64_t{-1}, int64_t{0}, int64_t{7}, int64_t{1985},
                       int64_t{9999}, int64_t{10000}, int64_t{99999}}) {
    for (int64_t micros : {int64_t{0}, int64_t{59'000'000}, int64_t{1'500'000}, int64_t{123'456},
                           int64_t{7}, int64_t{30'000'010}}) {
      const CivilTime t{year, 12, 31, 23, 59, micros};
      char buf[96];
      const int64_t seconds = micros / 1'000'000, fraction = micros % 1'000'000;
      std::string expected(
          buf, size_t(std::snprintf(buf, sizeof(buf), "%s%04lld-12-31T23:59:%02lld",
                                    year < 0 ? "-" : "", static_cast<long long>(std::llabs(year)),
                                    static_cast<long long>(seconds))));
      if (fraction != 0) {
        std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(fraction));
        std::string f(buf);
        while (f.back() == '0') f.pop_back();
        expected += f;
      }
      EXPECT_EQ(FormatIsoTime(t), expected + "Z");
    }
  }
  auto u = TimeUnits::Parse("hours since 1985-01-01", "");
  ASSERT_TRUE(u.ok());
  char out[kMaxIsoTimeLength];
  for (double v : {0.0, 1.0, 350639.0, 347921.1666667, -20.5}) {
    EXPECT_EQ(std::string(out, u->ToIso(v, out)), *u->ToIso(v)) << v;
  }
  EXPECT_EQ(u->ToIso(1e300, out), 0u);
}

// A writer keeps the date of the last day it labelled: whatever order values come in (forward,
// backward, jumping days, before the epoch, fractions of a second), in every calendar (the Julian
// to Gregorian reform, a 360-day year), each label is FormatIsoTime of ToCivil.
TEST(CfTimeTest, IsoWriterLabelsAsFormatIsoTimeWhateverTheOrder) {
  for (const char* calendar :
       {"standard", "proleptic_gregorian", "noleap", "all_leap", "360_day", "julian"}) {
    for (const char* units :
         {"hours since 1985-01-01", "seconds since 1582-10-15 00:00", "days since -0001-12-30"}) {
      auto u = TimeUnits::Parse(units, calendar);
      ASSERT_TRUE(u.ok()) << units << " " << calendar;
      TimeUnits::IsoWriter writer(*u);
      std::vector<double> values;
      for (int i = 0; i < 200; ++i) values.push_back(i * 0.25);  // forward, within and across days
      for (int i = 200; i > -200; i -= 7) values.push_back(i * 1.5);  // backward, past the epoch
      for (double v : {86400.5, 1e6, -1e6, 0.0, 0.0, 3e7, 123.125}) values.push_back(v);
      char out[kMaxIsoTimeLength];
      for (double v : values) {
        const std::string got(out, writer.Write(v, out));
        EXPECT_EQ(got, FormatIsoTime(*u->ToCivil(v))) << units << " " << calendar << " " << v;
      }
      EXPECT_EQ(writer.Write(std::nan(""), out), 0u);
      EXPECT_EQ(writer.Write(0.0, out), FormatIsoTime(*u->ToCivil(0.0)).size());  // still works
    }
  }
}

}  // namespace
}  // namespace gridstore::grid
