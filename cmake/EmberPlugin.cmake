# ember_add_plugin(<name> SOURCES <files...>)
# Builds a device plugin as a MODULE library named ember_plugin_<name>.so that
# sees only the SDK (the C ABI header and its C++ helpers), never the runtime.
# In the build tree it lands where an install puts it, lib/ember/plugins
# beside lib/libember_runtime.so, which is where the runtime looks.
function(ember_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(target ember_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Ember::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/lib/ember/plugins")
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/ember/plugins)
endfunction()
