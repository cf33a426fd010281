/* pc -> "FILE:LINE" with elfutils' libdwfl, on this process's own maps:
 * dwfl_linux_proc_report finds every loaded object and its load address
 * (PIE included), dwfl_module_getsrc the line. Each pc is looked up once;
 * the answers are kept in a hash table for the life of the process, since
 * a program calls MPI from few sites many times. The race checker hears
 * of a site as a key that every rank of the program can read back: the
 * offset of the pc in its module (the ranks run the same program, loaded
 * at different addresses). */
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
    char key[24];
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

static uint32_t name_hash(const char *name)
{
    const char *slash = name ? strrchr(name, '/') : NULL;
    uint32_t h = 2166136261u; /* FNV-1a of the base name */
    for (const char *p = slash ? slash + 1 : name ? name : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

/* Under `lock`: "@@HASH:OFFSET", the pc's offset in its module, named by
 * the hash of the module's base name. */
static void make_key(const void *pc, char *key, size_t size)
{
    Dwarf_Addr addr = (Dwarf_Addr)(uintptr_t)pc, start = 0;
    Dwfl_Module *m = module_of(addr);
    const char *name = m ? dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL)
                         : NULL;
    snprintf(key, size, "@@%x:%llx", (unsigned)name_hash(name),
             (unsigned long long)(addr - start));
}

static char *lookup(const void *pc)
{
    Dwarf_Addr addr = (Dwarf_Addr)(uintptr_t)pc;
    Dwfl_Module *m = module_of(addr);
    Dwfl_Line *l = m ? dwfl_module_getsrc(m, addr) : NULL;
    int line = 0;
    const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    char buf[4200], cwd[4096];
    size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (file && n > 1 && strncmp(file, cwd, n) == 0 && file[n] == '/')
        file += n + 1; /* relative to the working directory, as a compiler says it */
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

/* Under `lock`. */
static site *find(const void *pc)
{
    size_t h = ((uintptr_t)pc >> 2) % BUCKETS;
    site *s = table[h];
    while (s && s->pc != pc)
        s = s->next;
    if (!s && (s = malloc(sizeof *s))) {
        s->pc = pc;
        s->text = lookup(pc);
        if (!s->text)
            s->text = "??";
        make_key(pc, s->key, sizeof s->key);
        s->next = table[h];
        table[h] = s;
    }
    return s;
}

const char *run_where(const void *pc)
{
    pthread_mutex_lock(&lock);
    site *s = find(pc);
    pthread_mutex_unlock(&lock);
    return s ? s->text : "??";
}

const char *run_where_key(const void *pc)
{
    pthread_mutex_lock(&lock);
    site *s = find(pc);
    pthread_mutex_unlock(&lock);
    return s ? s->key : "??";
}

/* The module of a key: its name's hash (the same on every rank of an
 * SPMD program, whatever the load address). */
typedef struct {
    uint32_t hash;
    Dwarf_Addr start;
    int found;
} module_find;

static int match_module(Dwfl_Module *m, void **ud, const char *name, Dwarf_Addr start,
                        void *arg)
{
    module_find *f = arg;
    if (name_hash(name) != f->hash)
        return DWARF_CB_OK;
    f->start = start;
    f->found = 1;
    return DWARF_CB_ABORT;
}

/* The pc of a key ("@@HASH:OFFSET"), or NULL; *len is the key's length. */
static const void *key_pc(const char *key, size_t *len)
{
    char *colon, *end;
    if (key[0] != '@' || key[1] != '@')
        return NULL;
    module_find f = {.hash = (uint32_t)strtoul(key + 2, &colon, 16)};
    if (*colon != ':')
        return NULL;
    unsigned long long off = strtoull(colon + 1, &end, 16);
    if (end == colon + 1)
        return NULL;
    pthread_mutex_lock(&lock);
    if (!dwfl)
        report_maps();
    if (dwfl)
        dwfl_getmodules(dwfl, match_module, &f, 0);
    pthread_mutex_unlock(&lock);
    *len = (size_t)(end - key);
    return f.found ? (const void *)(uintptr_t)(f.start + off) : NULL;
}

void run_expand(const char *in, char *out, size_t size)
{
    size_t o = 0, len = 0;
    while (*in && o + 1 < size) {
        const void *pc = key_pc(in, &len);
        if (pc) {
            o += (size_t)snprintf(out + o, size - o, "%s", run_where(pc));
            in += len;
        } else {
            out[o++] = *in++;
        }
    }
    out[o < size ? o : size - 1] = '\0';
}
