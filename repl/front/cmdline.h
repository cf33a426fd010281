/* The command language of the REPL (cmdline.c): pure parsing of a typed
 * line into a target set and a chunk or a `:` command, rank sets, and
 * their folded text. No I/O, no Lua: fuzzable as it is. */
#ifndef RMALAB_REPL_CMDLINE_H
#define RMALAB_REPL_CMDLINE_H

#include <stddef.h>

#define RANKSET_MAX 1024

/* A set of ranks: in[r] for r < n. */
typedef struct {
    int n;
    unsigned char in[RANKSET_MAX];
} rankset;

/* Parse "0", "0,2", "1-3", "all", "0,2-3" for a job of `size` ranks. 0, or
 * -1 with a message in err (a rank outside the job, a bad range). */
int rankset_parse(const char *s, size_t len, int size, rankset *out, char *err, size_t errsize);
/* Ascending, runs of three or more as ranges: "0-2,5"; "all" is not used. */
void rankset_text(const rankset *s, char *buf, size_t size);
int rankset_count(const rankset *s);

enum { CMD_CHUNK, CMD_COMMAND, CMD_EMPTY, CMD_ERROR };

/* One line: `@<ranks> chunk`, `:name args`, a chunk, or nothing. */
typedef struct {
    int kind;
    int has_target;       /* @ranks given */
    rankset target;
    const char *body;     /* chunk or command arguments, into the line */
    size_t bodylen;
    char name[16];        /* one of cmdline_commands */
    char err[160];
} cmdline;

int cmdline_parse(const char *line, size_t len, int size, cmdline *out);

/* The `:` commands, NULL-terminated: the one list that the parser, its
 * "unknown command" message and the fuzzer read. */
extern const char *const cmdline_commands[];

#endif
