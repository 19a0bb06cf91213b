# Ember's one version number, read from the VERSION file at the root of the
# tree: the core's project(), every plugin built on its own (its wheel) and
# every pyproject.toml (through scikit-build-core's regex provider) take it
# from there, so a wheel's metadata, ember.__version__ and the versions the
# plugins report agree.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../VERSION" EMBER_VERSION LIMIT_COUNT 1)
if(NOT EMBER_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "VERSION must hold one version, MAJOR.MINOR.PATCH; it holds '${EMBER_VERSION}'")
endif()

# A shared library's file names: libX.so.MAJOR.MINOR.PATCH with the links
# libX.so.MAJOR (its SONAME) and libX.so in a system install. A wheel is a zip
# file, which keeps no symbolic links: each link would become a full copy, so
# there the library is one file, libX.so, whose version is the wheel's.
function(ember_set_library_version target)
  if(NOT SKBUILD)
    set_target_properties(${target} PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  endif()
endfunction()
