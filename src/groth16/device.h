/*
 * A prover device: what the engine asks of the hardware that proves a partition.
 *
 * The engine schedules partitions; a device proves them. A device is the CPU (this layer's
 * czk_device_cpu_open) or a GPU (src/gpu's czk_device_cuda_open); a new kind of hardware is
 * one new implementation of czk_device_ops and nothing else. The engine never plans device
 * memory itself and never looks inside a device: it asks `need` how many device bytes a
 * circuit takes, attaches a key once (getting an explicit handle back), proves partitions
 * with that handle, and detaches it before the key's host arrays are freed.
 *
 * Threads: a device's entries are called by one thread at a time (the engine holds the
 * device's lock around every call except info, host_alloc and host_free, which are
 * thread-safe). Distinct devices may be used concurrently. Errors: negative czk status codes
 * with `err` filled (NULL allowed); nothing here prints or aborts.
 */
#ifndef CZK_GROTH16_DEVICE_H
#define CZK_GROTH16_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "groth16/backend.h"
#include "groth16/keys.h"
#include "groth16/witness_pack.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_device czk_device;
/* A key attached to a device (opaque; its implementation's). */
typedef struct czk_device_key czk_device_key;

/* czk_device.flags */
enum {
    /* The device proves a partition from its witness alone when the key is attached with
     * CZK_DEVICE_ATTACH_WHOLE: the engine then needs no host scratch for the proof. */
    CZK_DEVICE_WHOLE_PROOFS = 1u << 0,
    /* prove() reads a witness pack (groth16/witness_pack.h) when given one: worth building. */
    CZK_DEVICE_WITNESS_PACK = 1u << 1,
    /* host_alloc hands out page-locked staging memory worth copying a witness into. */
    CZK_DEVICE_PINNED = 1u << 2,
};

/* How a key is attached (czk_device_ops.attach). */
typedef enum czk_device_attach {
    CZK_DEVICE_ATTACH_NONE = 0,   /* nothing kept: proofs stream the key step by step */
    CZK_DEVICE_ATTACH_POINTS = 1, /* the key's points are resident, the circuit is not */
    CZK_DEVICE_ATTACH_WHOLE = 2,  /* key and circuit resident: whole proofs from the witness */
    /* too large for the device: key and circuit page-locked on the host and streamed through
     * it by whole proofs from the witness */
    CZK_DEVICE_ATTACH_STREAMED = 3,
} czk_device_attach;

/* What a device reports about itself. */
typedef struct czk_device_info {
    char name[128];       /* "NVIDIA H200, 132 SMs, ..." or "cpu (16 prover threads)" */
    char label[32];       /* "cuda:0", "cpu": for log lines */
    int ordinal;          /* the GPU's ordinal; -1 for the CPU */
    uint64_t mem_total;   /* device memory; 0 for the CPU */
    uint64_t mem_free;    /* free device memory as of the latest call that sampled it */
    uint64_t mem_budget;  /* the device bytes the device may use (its plan's budget) */
    uint64_t mem_keys;    /* device bytes held by attached keys */
    uint64_t pinned_held; /* page-locked host bytes the device holds (in use or cached) */
} czk_device_info;

/* The device memory a circuit takes on a device. */
typedef struct czk_device_need {
    /* Device bytes one partition's proof needs besides attached keys (working arena and
     * tables, as the device's own planner sizes them for the key's domain and largest MSM);
     * 0 for the CPU. The engine reserves it from mem_budget while a partition proves. */
    uint64_t partition_bytes;
    /* Host bytes attach may allocate beyond the key and circuit themselves (for the host
     * budget: one such share per device). */
    uint64_t attach_host_bytes;
} czk_device_need;

typedef struct czk_device_ops {
    /* Frees the device and everything it holds (attached keys included); NULL-safe. */
    void (*close)(czk_device *d);
    /* Fills *out (mem_free as the device last sampled it: a GPU samples at open and after
     * every proof, not here, since info runs beside proofs). Thread-safe. */
    void (*info)(czk_device *d, czk_device_info *out);
    /* The memory proofs of (pk, cs) need on this device. CZK_ENOMEM when one partition can
     * never fit the device's budget (the message names the step and the bytes). */
    int (*need)(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs, czk_device_need *out,
                czk_err *err);
    /* Keeps what fits of pk and cs on the device for later proofs. Out: *key (NULL when
     * *mode is NONE: nothing to detach), *mode. pk's and cs's arrays must stay unchanged
     * and in place until detach. May be NULL (the device keeps nothing: the CPU). */
    int (*attach)(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs, czk_device_key **key,
                  czk_device_attach *mode, czk_err *err);
    /* As attach, for a circuit in its repeated form (r1cs/rep.h): rep is the block and cs
     * czk_r1cs_rep_dims's header (both kept in place until detach); the rows are expanded on
     * the device, never on the host. WHOLE, or else the circuit is not kept (*mode POINTS or
     * NONE: proofs of this circuit then cannot run here). May be NULL: such circuits do not
     * prove on this device. */
    int (*attach_rep)(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs_rep *rep,
                      const czk_r1cs *cs, czk_device_key **key, czk_device_attach *mode,
                      czk_err *err);
    /* Frees what attach kept; NULL key is a no-op. May be NULL when attach is. */
    void (*detach)(czk_device *d, czk_device_key *key);
    /* Host staging memory for witnesses (pinned on a GPU); NULL when there is none or its
     * budget is spent. Thread-safe. May be NULL (use czk_malloc). */
    void *(*host_alloc)(czk_device *d, size_t bytes);
    void (*host_free)(czk_device *d, void *p, size_t bytes);
    /*
     * One proof of w under pk/cs, blinded with r and s. key: what attach returned for this
     * pk (NULL: none). wp: the same witness packed (may be NULL), read instead of w by a
     * device with CZK_DEVICE_WITNESS_PACK. tm (may be NULL): step times. pool: CPU threads
     * for host-side steps. The proof is NOT verified here (the engine verifies every proof).
     */
    int (*prove)(czk_device *d, czk_device_key *key, const czk_groth16_pk *pk, const czk_r1cs *cs,
                 const czk_fr *w, const czk_witness_pack *wp, const czk_fr *r, const czk_fr *s,
                 czk_groth16_proof *proof, czk_groth16_timings *tm, czk_pool *pool, czk_err *err);
    /* The backend the device computes with, for work beside proofs (key generation through
     * its fixed_base: `czk setup --backend cuda`). Valid until close. May be NULL. */
    const czk_backend *(*backend)(czk_device *d);
} czk_device_ops;

/* Every device starts with this header (implementations embed it first). */
struct czk_device {
    const czk_device_ops *ops;
    unsigned flags; /* CZK_DEVICE_* */
};

/*
 * The CPU as a device, proving through `be` (NULL: czk_backend_cpu(); tests pass a wrapped
 * table to count or perturb calls; it must outlive the device). `name` (NULL: "cpu") names
 * it in status. Out: *out, freed with its close. Returns CZK_OK or CZK_ENOMEM.
 */
int czk_device_cpu_open(czk_device **out, const czk_backend *be, const char *name, czk_err *err);

/* Closes d (NULL is a no-op). */
void czk_device_close(czk_device *d);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_DEVICE_H */
