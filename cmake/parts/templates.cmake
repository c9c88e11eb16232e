# Embeds templates/*.js and templates/*.css into the library as C strings,
# so every SVG and HTML page is self-contained and the programs need no data files.
#
# Included by the top CMakeLists: adds a build step that regenerates
# ${CMAKE_BINARY_DIR}/generated/fg_templates.c whenever a template changes.
# Run as a script (cmake -DOUT=... -DSRC=... -P templates.cmake): writes it.

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB tmpls "${SRC}/*.js" "${SRC}/*.css")
  list(SORT tmpls)
  set(code "/* Generated from templates/ by cmake/parts/templates.cmake. */\n#include <stddef.h>\n")
  foreach(t ${tmpls})
    get_filename_component(base ${t} NAME)
    string(MAKE_C_IDENTIFIER "fg_template_${base}" ident)
    file(READ ${t} text)
    string(FIND "${text}" "]]>" bad)
    if(NOT bad EQUAL -1)
      message(FATAL_ERROR "${t}: contains ']]>', which would end the SVG's CDATA block")
    endif()
    string(TOLOWER "${text}" lower)
    string(FIND "${lower}" "</script" bad)
    if(NOT bad EQUAL -1)
      message(FATAL_ERROR "${t}: contains '</script', which would end the HTML page's script element")
    endif()
    if(base STREQUAL "viewer.js")
      # the HTML page carries the viewer as it is read: its indentation and
      # whole-line comments are left out (the template has no multi-line
      # strings), a fifth of its size
      string(REGEX REPLACE "\n[ \t]+" "\n" text "${text}")
      string(REGEX REPLACE "\n//[^\n]*" "" text "${text}")
      string(REGEX REPLACE "^//[^\n]*\n" "" text "${text}")
      file(WRITE "${OUT}.${base}" "${text}")
      file(READ "${OUT}.${base}" hex HEX)
      file(REMOVE "${OUT}.${base}")
    else()
      file(READ ${t} hex HEX)
    endif()
    string(LENGTH "${hex}" hexlen)
    math(EXPR n "${hexlen} / 2")
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
    string(APPEND code "const char ${ident}[] = {\n${bytes}0x00 };\nconst size_t ${ident}_len = ${n};\n")
  endforeach()
  file(WRITE "${OUT}.tmp" "${code}")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

file(GLOB FG_TEMPLATE_FILES CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/templates/*.js ${CMAKE_SOURCE_DIR}/templates/*.css)
set(FG_TEMPLATES_C ${CMAKE_BINARY_DIR}/generated/fg_templates.c)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${FG_TEMPLATES_C}
  COMMAND ${CMAKE_COMMAND} -DOUT=${FG_TEMPLATES_C} -DSRC=${CMAKE_SOURCE_DIR}/templates
          -P ${CMAKE_CURRENT_LIST_FILE}
  DEPENDS ${FG_TEMPLATE_FILES} ${CMAKE_CURRENT_LIST_FILE}
  COMMENT "Embedding the SVG templates"
  VERBATIM)
target_sources(flamegraph_objects PRIVATE ${FG_TEMPLATES_C})
