# The layers as a build fact. cmake/layers.txt lists, for each folder, the folders its files
# may include. For each folder F this makes <build>/layers/<F> (slashes as underscores), a
# directory of links to F itself and to the folders F may include, and
#   shmem_layer_includes(<target> <F> PUBLIC|PRIVATE|INTERFACE)
# puts that directory on the target's include path (and include/ when F may include the
# public headers). Nothing else of the tree is on any path, so "shmem/shmemi.h" from sdma/
# or "sdma/ring.h" from bootstrap/ is a compile error. Includes between layers are written
# "sdma/sdma.h", "device/state.h", "bootstrap/boot.h"; installed headers include their
# siblings by file name and sdma/ from device/ as "../sdma/ring.h" (the same relative
# layout holds in the source tree, in these directories and in the installation).
file(STRINGS ${CMAKE_SOURCE_DIR}/cmake/layers.txt _shmem_layer_lines REGEX "^[a-z]")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/layers.txt)
# The layers: the folders some line may include ("include" is not one: it is a path of its own).
set(_shmem_layers)
foreach(_line IN LISTS _shmem_layer_lines)
  string(REGEX REPLACE "^[^:]*:" "" _to "${_line}")
  separate_arguments(_to)
  list(APPEND _shmem_layers ${_to})
endforeach()
list(REMOVE_ITEM _shmem_layers include)
foreach(_line IN LISTS _shmem_layer_lines)
  string(REGEX REPLACE ":.*" "" _from "${_line}")
  if(_from STREQUAL "include")
    continue()
  endif()
  string(REGEX REPLACE "^[^:]*:" "" _to "${_line}")
  separate_arguments(_to)
  string(REPLACE "/" "_" _name "${_from}")
  set(_root ${CMAKE_BINARY_DIR}/layers/${_name})
  file(MAKE_DIRECTORY ${_root})
  # Links left by an earlier table go (file(REMOVE) removes a link, never what it points to).
  file(GLOB _old LIST_DIRECTORIES true ${_root}/*)
  foreach(_o IN LISTS _old)
    if(IS_SYMLINK ${_o})
      file(REMOVE ${_o})
    endif()
  endforeach()
  set(_links)
  if(_from IN_LIST _shmem_layers)
    list(APPEND _links ${_from}) # a layer's own files include each other as "<layer>/x.h"
  endif()
  set(_public OFF)
  foreach(_t IN LISTS _to)
    if(_t STREQUAL "include")
      set(_public ON)
    else()
      list(APPEND _links ${_t})
    endif()
  endforeach()
  foreach(_l IN LISTS _links)
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${_l} ${_root}/${_l} SYMBOLIC)
  endforeach()
  set(SHMEM_LAYER_ROOT_${_name} ${_root})
  set(SHMEM_LAYER_PUBLIC_${_name} ${_public})
endforeach()

function(shmem_layer_includes target layer scope)
  if(layer STREQUAL "include") # the public headers: include/ alone, as installed
    target_include_directories(${target} ${scope} ${CMAKE_SOURCE_DIR}/include
                                                  ${CMAKE_BINARY_DIR}/include)
    return()
  endif()
  string(REPLACE "/" "_" name "${layer}")
  if(NOT DEFINED SHMEM_LAYER_ROOT_${name})
    message(FATAL_ERROR "shmem_layer_includes(${target} ${layer}): ${layer} is not in cmake/layers.txt")
  endif()
  target_include_directories(${target} ${scope} ${SHMEM_LAYER_ROOT_${name}})
  if(SHMEM_LAYER_PUBLIC_${name})
    target_include_directories(${target} ${scope} ${CMAKE_SOURCE_DIR}/include
                                                  ${CMAKE_BINARY_DIR}/include)
  endif()
endfunction()

# shmem_header_check(<target> <layer> <header>...): an OBJECT library, built with the rest,
# of one C file per header that includes it alone with <layer>'s include path only: each
# header compiles on its own and includes nothing its layer may not.
function(shmem_header_check target layer)
  set(srcs)
  foreach(h IN LISTS ARGN)
    string(MAKE_C_IDENTIFIER "${h}" id)
    set(src ${CMAKE_CURRENT_BINARY_DIR}/${target}/${id}.c)
    file(CONFIGURE OUTPUT ${src} CONTENT "/* Generated: ${h} compiles alone. */\n#include \"${h}\"\n")
    list(APPEND srcs ${src})
  endforeach()
  add_library(${target} OBJECT ${srcs})
  shmem_layer_includes(${target} ${layer} PRIVATE)
endfunction()
