# The type-generic names: generic.c built as C11 (_Generic selections) and,
# as generic.cpp, as C++ (the overloads of shmem.h). Both call deprecated
# generics on purpose.
shmem_func_test(generic      SOURCE generic.c      NP 1 2 4 8
                COMPILE_OPTIONS -Wno-deprecated-declarations)
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  shmem_func_test(generic_cxx SOURCE generic.cpp   NP 1 2 4 8
                  COMPILE_OPTIONS -Wno-deprecated-declarations)
else()
  message(WARNING "no C++ compiler: the C++ overloads of shmem.h are not tested")
endif()
