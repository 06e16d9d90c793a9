// Copyright 2026 The GridStore Authors.
//
// PNGs the service draws, decoded back to 8-bit RGBA with libpng's simplified API, for the map
// tests (map_image_test.cc, map_tiles_test.cc).
#ifndef GRIDSTORE_TESTS_SERVER_PNG_TESTUTIL_H_
#define GRIDSTORE_TESTS_SERVER_PNG_TESTUTIL_H_

#include <gtest/gtest.h>
#include <png.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gridstore::server {

using Pixel = std::array<int, 4>;  // r, g, b, a

struct DecodedPng {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
  Pixel At(int x, int y) const {
    const uint8_t* p = &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4];
    return {p[0], p[1], p[2], p[3]};
  }
};

// Fails the test (and returns an empty image) if libpng cannot decode `png`.
inline DecodedPng DecodePng(const std::string& png) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  DecodedPng out;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
    ADD_FAILURE() << "not a PNG: " << image.message;
    return out;
  }
  image.format = PNG_FORMAT_RGBA;
  out.rgba.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgba.data(), 0, nullptr)) {
    ADD_FAILURE() << "cannot decode: " << image.message;
    out.rgba.clear();
    return out;
  }
  out.width = int(image.width);
  out.height = int(image.height);
  return out;
}

}  // namespace gridstore::server

#endif  // GRIDSTORE_TESTS_SERVER_PNG_TESTUTIL_H_
