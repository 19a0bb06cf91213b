# ember_add_plugin(<name> SOURCES <files...> [OUTPUT_DIRECTORY <dir>]
#                  [INSTALL_DESTINATION <dir>])
# Builds a device plugin as a MODULE library libember_plugin_<name>.so,
# target ember_plugin_<name>, that sees only the SDK (the C ABI header and its
# C++ helpers), never the runtime, and exports nothing but its entry point.
#   OUTPUT_DIRECTORY     where the build puts it (default: the current
#                        binary folder);
#   INSTALL_DESTINATION  where `cmake --install` puts it (default:
#                        <libdir>/ember/plugins, the folder the runtime
#                        discovers plugins in).
# The same file serves the Ember tree and, installed with the SDK,
# find_package(EmberSDK).
include(GNUInstallDirs)

function(ember_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;INSTALL_DESTINATION" "SOURCES" ${ARGN})
  if(NOT ARG_INSTALL_DESTINATION)
    set(ARG_INSTALL_DESTINATION "${CMAKE_INSTALL_LIBDIR}/ember/plugins")
  endif()
  set(target ember_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Ember::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIRECTORY)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION "${ARG_INSTALL_DESTINATION}")
endfunction()
