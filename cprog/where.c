/* pc -> "FILE:LINE" with elfutils' libdwfl, on this process's own maps:
 * dwfl_linux_proc_report finds every loaded object and its load address
 * (PIE included), dwfl_module_getsrc the line. Each pc is looked up once;
 * the answers are kept in a hash table for the life of the process, since
 * a program calls MPI from few sites many times. */
#include "where.h"

#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct site {
    const void *pc;
    const char *text;
    struct site *next;
} site;

#define BUCKETS 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static site *table[BUCKETS];
static Dwfl *dwfl;
static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* (Re)read the process's maps: objects loaded since are found too. */
static void report_maps(void)
{
    if (!dwfl)
        dwfl = dwfl_begin(&callbacks);
    if (!dwfl)
        return;
    dwfl_report_begin(dwfl);
    dwfl_linux_proc_report(dwfl, getpid());
    dwfl_report_end(dwfl, NULL, NULL);
}

static Dwfl_Module *module_of(Dwarf_Addr pc)
{
    Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    if (!m) {
        report_maps();
        m = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
    }
    return m;
}

static char *lookup(const void *pc)
{
    Dwarf_Addr addr = (Dwarf_Addr)(uintptr_t)pc;
    Dwfl_Module *m = module_of(addr);
    Dwfl_Line *l = m ? dwfl_module_getsrc(m, addr) : NULL;
    int line = 0;
    const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    char buf[4200];
    if (file) {
        snprintf(buf, sizeof buf, "%s:%d", file, line);
    } else {
        Dwarf_Addr start = 0;
        const char *name = m ? dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL)
                             : NULL;
        const char *slash = name ? strrchr(name, '/') : NULL;
        snprintf(buf, sizeof buf, "%s+0x%llx", slash ? slash + 1 : name ? name : "??",
                 (unsigned long long)(addr - start));
    }
    return strdup(buf);
}

const char *run_where(const void *pc)
{
    size_t h = ((uintptr_t)pc >> 2) % BUCKETS;
    pthread_mutex_lock(&lock);
    site *s = table[h];
    while (s && s->pc != pc)
        s = s->next;
    if (!s && (s = malloc(sizeof *s))) {
        s->pc = pc;
        s->text = lookup(pc);
        if (!s->text)
            s->text = "??";
        s->next = table[h];
        table[h] = s;
    }
    const char *text = s ? s->text : "??";
    pthread_mutex_unlock(&lock);
    return text;
}
