/* Compiles rmmjs/allocators.h as C11 (it is included by C callers). */
#include "rmmjs/allocators.h"

typedef void* (*cupy_malloc_fn)(void*, size_t, int);
typedef void* (*torch_alloc_fn)(size_t, int, void*);
typedef void* (*ort_alloc_fn)(size_t);

/* The hooks have the signatures the libraries' function pointer types spell. */
static const cupy_malloc_fn cupy_malloc = rmmjs_cupy_malloc;
static const torch_alloc_fn torch_alloc = rmmjs_torch_alloc;
static const ort_alloc_fn ort_alloc = rmmjs_ort_alloc;

int rmmjs_allocators_header_check(void) { return cupy_malloc != 0 && torch_alloc != 0 && ort_alloc != 0; }
