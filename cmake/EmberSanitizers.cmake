# Sanitizer flags apply to every target of the build, plugins included, so
# that memory errors across the ABI boundary are caught on both sides.
set(_ember_sanitizers "")
if(EMBER_SANITIZE_ADDRESS)
  list(APPEND _ember_sanitizers address)
endif()
if(EMBER_SANITIZE_UNDEFINED)
  list(APPEND _ember_sanitizers undefined)
endif()
if(EMBER_SANITIZE_THREAD)
  list(APPEND _ember_sanitizers thread)
endif()
if(_ember_sanitizers)
  list(JOIN _ember_sanitizers "," _ember_sanitize_list)
  add_compile_options(-fsanitize=${_ember_sanitize_list} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_ember_sanitize_list})
endif()

# Environment for every test process. Under ASan: allocation failures return
# NULL (the out-of-memory tests need that), and because GCC 12's LeakSanitizer
# crashes scanning the dynamic TLS of dlopen()ed libraries (oneDNN's), TLS is
# not scanned and glibc's per-thread dlerror buffer is suppressed.
set(EMBER_TEST_ENVIRONMENT "EMBER_PLUGIN_PATH=")
if(EMBER_SANITIZE_ADDRESS)
  list(APPEND EMBER_TEST_ENVIRONMENT
    "ASAN_OPTIONS=allocator_may_return_null=1"
    "LSAN_OPTIONS=use_tls=0:suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp")
endif()
if(EMBER_SANITIZE_UNDEFINED)
  list(APPEND EMBER_TEST_ENVIRONMENT "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
endif()
