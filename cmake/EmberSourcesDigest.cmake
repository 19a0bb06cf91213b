# ember_sources_digest(<var> <folder> <file>... [TEXT <text>])
# Sets <var> to the first 16 hex digits of the SHA-256 of <text> followed by
# the files' contents (each named relative to <folder>), and reconfigures
# when any of them changes. A code generator puts such a digest of the
# sources that decide the code it writes into its fingerprint, so that a
# kernel cached by a build whose generator wrote other code is compiled
# again.
function(ember_sources_digest out_var folder)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "TEXT" "")
  set(input "${arg_TEXT}")
  foreach(source IN LISTS arg_UNPARSED_ARGUMENTS)
    set(file "${folder}/${source}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
    file(READ "${file}" text)
    string(APPEND input "${text}")
  endforeach()
  string(SHA256 digest "${input}")
  string(SUBSTRING "${digest}" 0 16 digest)
  set(${out_var} "${digest}" PARENT_SCOPE)
endfunction()
