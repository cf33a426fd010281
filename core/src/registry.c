/* The process's live windows, for tools that watch a process from another
 * thread (the REPL's control thread): a list under a mutex, which a window
 * leaves before its memory is released, so rmalab_win_each never hands out
 * a freed window. The list runs through the windows themselves, so adding
 * one allocates nothing and cannot fail after creation has succeeded on
 * every rank. */
#include "win-private.h"
#include "registry.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rmalab_win *first, *last; /* in creation order, linked through the windows */
static uint64_t next_id = 1;

void rmalab__registry_add(rmalab_win *w)
{
    pthread_mutex_lock(&registry_lock);
    w->id = next_id++;
    w->reg_prev = last;
    w->reg_next = NULL;
    if (last)
        last->reg_next = w;
    else
        first = w;
    last = w;
    pthread_mutex_unlock(&registry_lock);
}

void rmalab__registry_remove(rmalab_win *w)
{
    pthread_mutex_lock(&registry_lock);
    if (w->reg_prev)
        w->reg_prev->reg_next = w->reg_next;
    else if (first == w)
        first = w->reg_next;
    if (w->reg_next)
        w->reg_next->reg_prev = w->reg_prev;
    else if (last == w)
        last = w->reg_prev;
    w->reg_prev = w->reg_next = NULL;
    pthread_mutex_unlock(&registry_lock);
}

void rmalab_win_each(void (*fn)(rmalab_win *win, void *ud), void *ud)
{
    pthread_mutex_lock(&registry_lock);
    for (rmalab_win *w = first; w; w = w->reg_next)
        fn(w, ud);
    pthread_mutex_unlock(&registry_lock);
}

uint64_t rmalab_win_id(const rmalab_win *w)
{
    return w ? w->id : 0;
}
