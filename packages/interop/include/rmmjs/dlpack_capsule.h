/*
 * A DLPack capsule in JavaScript, as @rmmjs/interop makes and takes them (toDLPack, fromDLPack):
 * what Python's "dltensor_versioned" PyCapsule is, for Node-API. Plain C; include DLPack's own
 * dlpack.h (1.0 or later) for struct DLManagedTensorVersioned.
 *
 * A capsule is a napi_external, type-tagged {RMMJS_TAG_DLPACK_LOWER, RMMJS_TAG_DLPACK_UPPER}, whose
 * data points to an rmmjs_dlpack_capsule that its producer allocated:
 * - A consumer checks the tag and the magic, then takes the tensor by setting `tensor` to NULL: a
 *   capsule is consumed at most once (NULL means taken). The consumer then owns the tensor and
 *   calls its deleter (when not NULL) exactly once, from any thread, when done with it.
 * - The producer's finalizer of the external calls the deleter of a tensor nobody took, then frees
 *   the rmmjs_dlpack_capsule.
 * - A consumer that does not know the tensor's major version calls the deleter and refuses it (the
 *   rest of the struct may have another layout).
 */
#ifndef RMMJS_DLPACK_CAPSULE_H
#define RMMJS_DLPACK_CAPSULE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct DLManagedTensorVersioned; /* dlpack.h */

#define RMMJS_TAG_DLPACK_LOWER 0x646c74656e736f72ULL     /* "dltensor" */
#define RMMJS_TAG_DLPACK_UPPER 0x76657273696f6e31ULL     /* "version1" */
#define RMMJS_DLPACK_CAPSULE_MAGIC 0x726d6d6a73444c50ULL /* "rmmjsDLP" */

typedef struct rmmjs_dlpack_capsule {
  uint64_t magic;
  struct DLManagedTensorVersioned* tensor; /* NULL once consumed */
} rmmjs_dlpack_capsule;

#ifdef __cplusplus
}
#endif

#endif /* RMMJS_DLPACK_CAPSULE_H */
