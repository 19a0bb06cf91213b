# Ember's one version number, read from the VERSION file at the root of the
# tree: the core's project(), every plugin built on its own (its wheel) and
# every pyproject.toml (through scikit-build-core's regex provider) take it
# from there, so a wheel's metadata, ember.__version__ and the versions the
# plugins report agree.
file(STRINGS "${CMAKE_CURRENT_LIST_DIR}/../VERSION" EMBER_VERSION LIMIT_COUNT 1)
if(NOT EMBER_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "VERSION must hold one version, MAJOR.MINOR.PATCH; it holds '${EMBER_VERSION}'")
endif()
