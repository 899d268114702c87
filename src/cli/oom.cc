// src/cli/oom.cc — the one C++ file of ccsim: SimGrid's operator new, when
// malloc fails, calls the handler installed here (process_out_of_memory:
// a message and exit 1, src/cli/process.h) instead of throwing a
// std::bad_alloc that nothing catches and that ends in abort().
#include <new>

extern "C" {
#include "process.h"
}

extern "C" void process_new_handler(void) { std::set_new_handler(process_out_of_memory); }
