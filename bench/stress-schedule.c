/* The long run's program (stress.c): the graph of each epoch, the
 * operations on each of its edges, and what they do to the target's memory,
 * all drawn from the seed, the same on every rank. */
#include "stress-shared.h"

int rank, size; /* set once by main (stress.c), read by every file */

/* ------------------------------------------------------------------------ */
/* The schedule: one graph per epoch                                        */

static mask all_ranks(void)
{
    return size == 64 ? ~(mask)0 : ((mask)1 << size) - 1;
}

void schedule_reset(struct schedule *s)
{
    for (int o = 0; o < size; o++)
        s->after[o] = all_ranks();
}

/* Who is known to post after each rank's last start, from the epoch after
 * g on (the top of stress.c says why). */
static void advance(struct schedule *s, const struct graph *g)
{
    mask next_after[MAX_RANKS];
    for (int o = 0; o < size; o++) {
        if (g->out[o]) {
            next_after[o] = (mask)1 << o | g->out[o];
            continue;
        }
        next_after[o] = s->after[o];
        for (int r = 0; r < size; r++)
            if (s->after[o] >> r & 1)
                next_after[o] |= g->out[r];
    }
    memcpy(s->after, next_after, sizeof(mask) * (size_t)size);
}

/* The graph of epoch e, made safe for native. Every rank draws the same. */
void draw_graph(struct schedule *s, long e, struct graph *g)
{
    rng r = rng_at(s->seed, (uint64_t)e, 1, 0);
    memset(g, 0, sizeof *g);
    mask unsafe = 0;
    for (int o = 0; o < size; o++) {
        for (int t = 0; t < size; t++)
            if (below(&r, 2)) {
                g->out[o] |= (mask)1 << t;
                if (below(&r, 8) == 0)
                    g->quiet[o] |= (mask)1 << t;
            }
        unsafe |= g->out[o] & ~s->after[o];
    }
    if (s->unfiltered) { /* -u: every edge as drawn */
        schedule_reset(s);
    } else if (unsafe && below(&r, 8) == 0) {
        g->barrier = true;
        s->barriers++;
        schedule_reset(s);
    }
    for (int o = 0; o < size; o++) {
        mask drop = g->out[o] & ~s->after[o];
        s->dropped += __builtin_popcountll(drop);
        g->out[o] &= ~drop;
        g->quiet[o] &= g->out[o];
        s->edges += __builtin_popcountll(g->out[o]);
        for (int t = 0; t < size; t++)
            if (g->out[o] >> t & 1)
                g->in[t] |= (mask)1 << o;
    }
    advance(s, g);
}

/* The ranks of m in an order drawn from r (groups need not be sorted). */
int ranks_of(mask m, rng *r, int *out)
{
    int n = 0;
    for (int i = 0; i < size; i++)
        if (m >> i & 1)
            out[n++] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)below(r, (uint32_t)i + 1), x = out[i];
        out[i] = out[j];
        out[j] = x;
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* Operations: what origin o issues to target t in epoch e                  */

int draw_ops(uint64_t seed, long e, int o, int t, struct op *ops)
{
    rng r = rng_at(seed, (uint64_t)e, 2, (uint64_t)o * MAX_RANKS + (uint64_t)t);
    static const rmalab_type put_types[3] = {RMALAB_UINT8, RMALAB_UINT32, RMALAB_UINT64};
    static const rmalab_type get_types[2] = {RMALAB_UINT8, RMALAB_UINT64};
    int n = 1 + (int)below(&r, MAX_OPS);
    bool put_done = false; /* puts of one epoch must not overlap: one per pair */
    for (int k = 0; k < n; k++) {
        struct op *p = &ops[k];
        p->kind = (int)below(&r, 4); /* put twice as often as the others */
        p->kind = p->kind == 3 ? OP_PUT : p->kind;
        if (p->kind == OP_PUT && put_done)
            p->kind = OP_ACC;
        int unit, cells;
        if (p->kind == OP_PUT) {
            put_done = true;
            p->type = put_types[below(&r, 3)];
            unit = rmalab_type_size(p->type);
            cells = SLOT / unit;
        } else if (p->kind == OP_ACC) {
            p->type = RMALAB_UINT64;
            unit = 8;
            cells = ACC_CELLS;
        } else {
            p->type = get_types[below(&r, 2)];
            unit = rmalab_type_size(p->type);
            cells = ID_BYTES / unit;
        }
        p->count = 1 + (int)below(&r, p->kind == OP_ACC ? 8 : (uint32_t)cells);
        MPI_Aint first = (MPI_Aint)below(&r, (uint32_t)(cells - p->count + 1)) * unit;
        p->disp = first + (p->kind == OP_PUT ? put_at(o) : p->kind == OP_ACC ? acc_at() : id_at());
        p->data = rng_at(seed, (uint64_t)e, 3 + (uint64_t)k,
                         (uint64_t)o * MAX_RANKS + (uint64_t)t);
    }
    return n;
}

/* What an op does to the target's memory, applied to the model. */
void apply(unsigned char *model, const struct op *p)
{
    size_t bytes = (size_t)p->count * (size_t)rmalab_type_size(p->type);
    unsigned char data[SLOT];
    if (p->kind == OP_GET)
        return;
    fill(p->data, data, bytes);
    if (p->kind == OP_PUT) {
        memcpy(model + p->disp, data, bytes);
        return;
    }
    for (int i = 0; i < p->count; i++) {
        uint64_t a, b;
        memcpy(&a, model + p->disp + 8 * i, 8);
        memcpy(&b, data + 8 * i, 8);
        a += b;
        memcpy(model + p->disp + 8 * i, &a, 8);
    }
}
