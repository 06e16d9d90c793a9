// Copyright 2026 The GridStore Authors.
