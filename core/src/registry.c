/* The process's live windows, for tools that watch a process from another
 * thread (the REPL's control thread): a list under a mutex, which a window
 * leaves before its memory is released, so rmalab_win_each never hands out
 * a freed window. */
#include "win-private.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rmalab_win **live;
static int nlive, caplive;
static uint64_t next_id = 1;

int rmalab__registry_add(rmalab_win *w)
{
    int rc = RMALAB_OK;
    pthread_mutex_lock(&registry_lock);
    if (nlive == caplive) {
        int cap = caplive ? 2 * caplive : 16;
        rmalab_win **p = realloc(live, (size_t)cap * sizeof *p);
        if (p) {
            live = p;
            caplive = cap;
        }
    }
    if (nlive < caplive) {
        w->id = next_id++;
        live[nlive++] = w;
    } else {
        rc = rmalab__fail(RMALAB_ERR_NO_MEM, "out of memory registering a window");
    }
    pthread_mutex_unlock(&registry_lock);
    return rc;
}

void rmalab__registry_remove(rmalab_win *w)
{
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < nlive; i++)
        if (live[i] == w) {
            for (int j = i + 1; j < nlive; j++)
                live[j - 1] = live[j];
            nlive--;
            break;
        }
    if (nlive == 0) {
        free(live);
        live = NULL;
        caplive = 0;
    }
    pthread_mutex_unlock(&registry_lock);
}

void rmalab_win_each(void (*fn)(rmalab_win *win, void *ud), void *ud)
{
    pthread_mutex_lock(&registry_lock);
    for (int i = 0; i < nlive; i++)
        fn(live[i], ud);
    pthread_mutex_unlock(&registry_lock);
}

uint64_t rmalab_win_id(const rmalab_win *w)
{
    return w ? w->id : 0;
}
