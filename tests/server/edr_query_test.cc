// Copyright 2026 The GridStore Authors.
#include <gtest/gtest.h>
