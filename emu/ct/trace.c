/* The constant-time checker's trace recorder (emu/ct/checker.py), as Unicorn hooks written in C.
 *
 * THE TRICK.  Unicorn calls C directly for every instruction and data access (as Python hooks each
 * event is a ctypes call, and a FACE drop's cache sequence is tens of millions of events); events
 * go into a buffer in exactly emu/ct/checker.py's encoding, and Python is called back only per
 * chunk (`flush`), per new instruction address (`classify`) and per execution of a data-dependent
 * instruction (`timing`): the same trace, chunks and hashes as the Python recorder, cheaper.
 * Signatures: Unicorn's uc_cb_hookcode_t and uc_cb_hookmem_t (unicorn/unicorn.h).  The details:
 * docs/internals/ct-checker.md.
 */
#include <stdint.h>
#include <stdlib.h>

enum { K_INSN = 0, K_READ = 1, K_WRITE = 2, K_TIMING = 3 };

typedef void (*sg_flush_fn)(void);
typedef int32_t (*sg_classify_fn)(uint64_t address, uint32_t size);
typedef uint64_t (*sg_timing_fn)(uint64_t address);

typedef struct {
    uint64_t *buf;              /* events not yet flushed */
    uint64_t n;                 /* how many */
    uint64_t cap;               /* allocated (grows; never reached in practice) */
    uint64_t chunk;             /* flush once n >= chunk after an instruction event */
    uint64_t n_insns;           /* instructions recorded since the counter was reset */
    uint64_t last_pc;           /* address of the last recorded instruction */
    int32_t active;             /* record only while set (emu/ct/checker.py Tracer.recording) */
    int32_t write_type;         /* Unicorn's UC_MEM_WRITE */
    int32_t failed;             /* the buffer could not grow: the trace is incomplete */
    int32_t pad;
    uint8_t *cls;               /* per address of the code area: 0 not asked, 1 fixed, 2 dynamic */
    uint64_t cls_base, cls_len;
    sg_flush_fn flush;
    sg_classify_fn classify;
    sg_timing_fn timing;
} sg_tracer;

sg_tracer *sg_tracer_new(uint64_t chunk, uint64_t cls_base, uint64_t cls_len, int32_t write_type)
{
    sg_tracer *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->chunk = chunk;
    t->cap = chunk + 4096;
    t->buf = malloc(t->cap * sizeof *t->buf);
    t->cls = calloc(cls_len ? cls_len : 1, 1);
    if (!t->buf || !t->cls) {
        free(t->buf);
        free(t->cls);
        free(t);
        return NULL;
    }
    t->cls_base = cls_base;
    t->cls_len = cls_len;
    t->write_type = write_type;
    return t;
}

void sg_tracer_free(sg_tracer *t)
{
    if (t) {
        free(t->buf);
        free(t->cls);
        free(t);
    }
}

static void push(sg_tracer *t, uint64_t e)
{
    if (t->n == t->cap) {
        uint64_t *nb = realloc(t->buf, 2 * t->cap * sizeof *nb);
        if (!nb) {
            t->failed = 1;
            return;
        }
        t->buf = nb;
        t->cap *= 2;
    }
    t->buf[t->n++] = e;
}

void sg_on_code(void *uc, uint64_t address, uint32_t size, void *user)
{
    sg_tracer *t = user;
    (void)uc;
    if (!t->active)
        return;
    push(t, address << 8 | K_INSN);
    t->n_insns++;
    t->last_pc = address;
    uint8_t c = 0, *slot = 0;
    if (address - t->cls_base < t->cls_len) {
        slot = &t->cls[address - t->cls_base];
        c = *slot;
    }
    if (c == 0) {
        c = t->classify(address, size) ? 2 : 1;
        if (slot)
            *slot = c;
    }
    if (c == 2)
        push(t, t->timing(address));
    if (t->n >= t->chunk)
        t->flush();
}

void sg_on_mem(void *uc, int type, uint64_t address, int size, int64_t value, void *user)
{
    sg_tracer *t = user;
    (void)uc;
    (void)value;                /* never the value: only where and how wide */
    if (!t->active)
        return;
    push(t, address << 8 | ((uint64_t)size & 31) << 3 | (type == t->write_type ? K_WRITE : K_READ));
}
