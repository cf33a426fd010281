/* Names that calls take every time (a reduction's op, a lock's kind, an
 * operation's type), matched by their strings' addresses: private to the
 * binding (lvalues.c makes them). Lua 5.4 interns short strings, so while
 * a state keeps one "sum" alive every "sum" in it is that object, and
 * lua_topointer of an argument equals the kept string's exactly when the
 * argument is that name: one API call where lua_type and lua_tolstring
 * were two, and the name's bytes never read. The addresses are the first
 * state's that opens the module, in a static (an upvalue cost another API
 * call, 38 instructions); the state clears it as it closes, before its
 * strings are freed, so an address there is always a live string's, which
 * no object of another state can share. Only a light userdata that C code
 * made with that very address could pass too. A name not found (a number,
 * another string, any name in a second state) goes to the general check,
 * whose errors stay. */
#ifndef LRM_NAMES_H
#define LRM_NAMES_H

#include <stdatomic.h>

#include "lrmalab.h"

enum {
    LRM_NAME_OP = 0,                                   /* rmalab_op_name(op) */
    LRM_NAME_TYPE = LRM_NAME_OP + RMALAB_OP_NO_OP + 1, /* rmalab_type_name(t) */
    LRM_NAME_LOCK = LRM_NAME_TYPE + RMALAB_NTYPES,     /* "exclusive", "shared" */
    LRM_NAMES = LRM_NAME_LOCK + 2
};

typedef struct {
    const void *p[LRM_NAMES];
} lrm_names;

/* The first state's names, or NULL (relaxed: they are set before the
 * state runs a call, and cleared in its lua_close). */
extern _Atomic(const lrm_names *) lrm_names_kept;

/* A lock's kinds, win:lock's options in this order (index 0: exclusive). */
extern const char *const lrm_lock_kinds[];

/* Make this state's names (once, kept in its registry), and keep their
 * addresses when no other state has. */
void lrm_open_names(lua_State *L);

/* The index among the n names from `first` of the argument at arg, or -1. */
static inline int lrm_name_at(lua_State *L, int arg, int first, int n)
{
    const lrm_names *names = atomic_load_explicit(&lrm_names_kept, memory_order_relaxed);
    if (!names)
        return -1;
    const void *s = lua_topointer(L, arg); /* NULL for a number, nil or boolean */
    for (int i = 0; i < n; i++)
        if (names->p[first + i] == s)
            return i;
    return -1;
}

#endif
