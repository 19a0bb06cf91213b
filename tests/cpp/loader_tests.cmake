# Tests of the plugin loader, the caching allocator and plugin kernel errors.
# Included from tests/CMakeLists.txt after tests/plugins, whose plugins they
# load by path.
get_property(_ember_test_plugin_targets GLOBAL PROPERTY EMBER_TEST_PLUGIN_TARGETS)

function(ember_use_test_plugins target)
  add_dependencies(${target} ${_ember_test_plugin_targets})
  target_compile_definitions(${target} PRIVATE EMBER_TEST_PLUGIN_DIR="${EMBER_TEST_PLUGIN_DIR}")
endfunction()

ember_add_cpp_test(ember_test_plugin_loader SOURCES cpp/test_plugin_loader.cpp cpp/test_plugin_discovery.cpp)
ember_use_test_plugins(ember_test_plugin_loader)
ember_add_cpp_test(ember_test_caching_allocator SOURCES cpp/test_caching_allocator.cpp)
ember_use_test_plugins(ember_test_caching_allocator)
ember_add_cpp_test(ember_test_kernel_errors SOURCES cpp/test_kernel_errors.cpp cpp/test_kernel_faults.cpp)
ember_use_test_plugins(ember_test_kernel_errors)
# Device time through the profiling extension (ABI 1.5): the lagging test device and the CPU plugin.
ember_add_cpp_test(ember_test_device_time SOURCES cpp/test_device_time.cpp)
ember_use_test_plugins(ember_test_device_time)
# Many threads at once: the workload of the ThreadSanitizer build (scripts/tsan.sh).
ember_add_cpp_test(ember_test_concurrency SOURCES cpp/test_concurrency.cpp)
ember_use_test_plugins(ember_test_concurrency)

# Streams and events, on the streamed toy plugin and, where built, the XPU plugin.
# XPU program binaries go to the build's caches, as for the XPU plugin's own tests.
ember_add_cpp_test(ember_test_streams SOURCES cpp/test_streams.cpp ENVIRONMENT
  "EMBER_XPU_CACHE_DIR=${CMAKE_BINARY_DIR}/xpu-program-cache" "POCL_CACHE_DIR=${CMAKE_BINARY_DIR}/xpu-pocl-cache")
ember_use_test_plugins(ember_test_streams)
if(TARGET ember_plugin_xpu)
  target_compile_definitions(ember_test_streams PRIVATE EMBER_XPU_PLUGIN_PATH="$<TARGET_FILE:ember_plugin_xpu>")
  add_dependencies(ember_test_streams ember_plugin_xpu)
endif()
