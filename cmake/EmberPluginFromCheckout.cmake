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
include("${CMAKE_CURRENT_LIST_DIR}/EmberSourcesDigest.cmake")
set(EMBER_BUILD_TESTS OFF)
# The SDK's kernel IR library (sdk/kernel_ir), for a plugin's code
# generator; built only where the plugin links it.
add_subdirectory("${CMAKE_CURRENT_LIST_DIR}/../sdk/kernel_ir" "${CMAKE_BINARY_DIR}/ember_sdk_kernel_ir" EXCLUDE_FROM_ALL)

# The wheel's package learns from the build which version it is and which
# plugin ABI its library speaks: its entry point declares that ABI, which the
# core checks before it opens the library (python/ember/_plugins.py).
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../sdk/include/ember/ember_plugin.h" _ember_abi_defines
  REGEX "^#define EMBER_ABI_VERSION_(MAJOR|MINOR) [0-9]+$")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" EMBER_ABI_VERSION_MAJOR "${_ember_abi_defines}")
string(REGEX REPLACE ".*MINOR ([0-9]+).*" "\\1" EMBER_ABI_VERSION_MINOR "${_ember_abi_defines}")
if(SKBUILD)
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/wheel_package/_build_info.py" CONTENT
    "# Written by the wheel's build (cmake/EmberPluginFromCheckout.cmake).\nversion = \"${PROJECT_VERSION}\"\nabi_major = ${EMBER_ABI_VERSION_MAJOR}\nabi_minor = ${EMBER_ABI_VERSION_MINOR}\n")
  install(FILES "${CMAKE_BINARY_DIR}/wheel_package/_build_info.py" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
