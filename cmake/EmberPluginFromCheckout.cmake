# Included by a device plugin's CMakeLists.txt when it is the top-level
# project (its pip wheel, `pip install ./plugins/<name>`): the SDK is the
# checkout's headers (the ABI contract the wheel's `ember` dependency range
# promises), ember_add_plugin() is at hand, and the plugin installs where
# the wheel's package expects it (CMAKE_INSTALL_LIBDIR, set by its
# pyproject.toml), with the SDK's kernel IR library. Tests are not built.
include(GNUInstallDirs)
find_package(dlpack REQUIRED)
add_library(ember_sdk INTERFACE)
add_library(Ember::sdk ALIAS ember_sdk)
target_include_directories(ember_sdk INTERFACE "${CMAKE_CURRENT_LIST_DIR}/../sdk/include")
target_link_libraries(ember_sdk INTERFACE dlpack::dlpack)
# The C++ helpers need C++20, as the SDK target of sdk/CMakeLists.txt says.
target_compile_features(ember_sdk INTERFACE cxx_std_20)
include("${CMAKE_CURRENT_LIST_DIR}/EmberPlugin.cmake")
set(EMBER_BUILD_TESTS OFF)
# The SDK's kernel IR library (sdk/kernel_ir), for a plugin's code
# generator; built only where the plugin links it.
add_subdirectory("${CMAKE_CURRENT_LIST_DIR}/../sdk/kernel_ir" "${CMAKE_BINARY_DIR}/ember_sdk_kernel_ir" EXCLUDE_FROM_ALL)
