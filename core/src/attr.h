/* attr.c: attribute lists, embedded in every window (win.c).
 * Private to the core, never installed. */
#ifndef RMALAB_ATTR_H
#define RMALAB_ATTR_H

#include "private.h"

typedef struct rmalab__attr {
    rmalab_keyval *kv;
    void *value;
    bool replacing;                   /* its old value's delete callback runs */
    struct rmalab__attr *prev, *next; /* in order of first setting */
} rmalab__attr;

typedef struct {
    rmalab__attr *head, *tail;
    int running;                      /* delete callbacks running now */
} rmalab__attr_list;

/* Run the delete callback of every attribute of `win`, most recently set
 * first, removing each from the list before its callback runs (so callbacks
 * may delete other attributes or free their keyval). Every attribute is
 * removed whatever the callbacks return; the first error is returned with
 * its message. */
int rmalab__attr_delete_all(rmalab_win *win);
/* Drop every attribute without callbacks and without touching keyvals, for
 * a process on its way out (rmalab_win_abandon). */
void rmalab__attr_forget(rmalab_win *win);
/* Is one of the window's delete callbacks running (it may not free the
 * window)? */
bool rmalab__attr_busy(const rmalab_win *win);

#endif
