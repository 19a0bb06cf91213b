#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <ember/error.h>

namespace ember::testing {

// Runs f and checks that it throws an ember::Error of `kind` whose message
// contains `fragment`: errors must say what was wrong, not only fail.
template <typename F>
void expect_error(F&& f, ErrorKind kind, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "expected an ember::Error containing \"" << fragment << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr(fragment));
  }
}

}  // namespace ember::testing
