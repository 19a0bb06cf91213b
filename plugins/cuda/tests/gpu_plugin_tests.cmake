# The GPU plugins' tests, for plugins/cuda and plugins/rocm alike. Without a
# GPU the plugin must still load, register its kernels and report that
# there is no device; the tests that need one skip and say so.
find_package(GTest REQUIRED)

# ember_add_gpu_plugin_tests(<device type> <plugin target> <what is missing>)
function(ember_add_gpu_plugin_tests device_type plugin_target missing)
  set(test_binary ember_test_${device_type}_plugin)
  add_executable(${test_binary} "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/test_gpu_plugin.cpp")
  target_compile_features(${test_binary} PRIVATE cxx_std_20)
  target_link_libraries(${test_binary} PRIVATE Ember::runtime GTest::gtest GTest::gtest_main)
  target_compile_definitions(${test_binary} PRIVATE EMBER_GPU_PLUGIN_PATH="$<TARGET_FILE:${plugin_target}>"
                                                    EMBER_GPU_DEVICE_TYPE="${device_type}")
  add_dependencies(${test_binary} ${plugin_target})
  add_test(NAME ${device_type}_plugin COMMAND ${test_binary})
  set_tests_properties(${device_type}_plugin PROPERTIES TIMEOUT 300 ENVIRONMENT "${EMBER_TEST_ENVIRONMENT}")

  add_test(NAME conformance_${device_type}
    COMMAND "${PROJECT_SOURCE_DIR}/cmake/run_conformance_or_skip.sh" $<TARGET_FILE:ember_conformance_cli>
            $<TARGET_FILE:${plugin_target}> ${CMAKE_CURRENT_BINARY_DIR}/conformance_${device_type}.json "${missing}")
  set_tests_properties(conformance_${device_type} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
    ENVIRONMENT "${EMBER_TEST_ENVIRONMENT}")
endfunction()
