// generic.c built as C++: the same calls resolve to the overloads of shmem.h.
#include "generic.c"
