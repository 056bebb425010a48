# The repository's test-only addons: helpers for the CMakeLists.txt that build them (core's,
# interop's and @rmmjs/test-addon's), included after @rmmjs/core's cmake/rmmjs_addon.cmake. Not
# shipped: a published package builds no test addon.

# Test-only addons go to build/test-addons/<target>/build/Release/: each folder is laid out as a
# package of its own for loadAddon, and build/Release/ keeps only the package's addon (node-gyp-build
# loads the first .node file it finds there).
function(rmmjs_test_addon_output target)
  set_target_properties(${target} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY $<1:${CMAKE_BINARY_DIR}/test-addons/${target}/build/Release>)
endfunction()

# rmmjs_c_test_addon(<target> <source> [<definitions>...]): a test-only addon in plain C11 that
# uses nothing but node_api.h and the C ABI headers, as a third party's would. The project must
# enable C (enable_language(C) at file scope).
function(rmmjs_c_test_addon target source)
  add_library(${target} SHARED ${source} ${CMAKE_JS_SRC})
  set_target_properties(${target} PROPERTIES PREFIX "" SUFFIX ".node" C_STANDARD 11 C_STANDARD_REQUIRED ON
    C_VISIBILITY_PRESET hidden)
  rmmjs_test_addon_output(${target})
  target_include_directories(${target} PRIVATE ${CMAKE_JS_INC} ${RMMJS_CORE_INCLUDE})
  target_compile_definitions(${target} PRIVATE NAPI_VERSION=8 ${ARGN})
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror -Wno-unused-parameter)
  target_link_libraries(${target} PRIVATE ${CMAKE_JS_LIB})
endfunction()
