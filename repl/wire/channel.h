/* The control channel between the front end and the ranks (docs/repl.md):
 * length-prefixed frames of typed messages over a stream socket, and the
 * token check of the first frame. The decoder is pure: it reads only the
 * bytes it is given and never allocates, so it can be fuzzed directly.
 *
 * The files of wire/, what the programs share, each calling only those on
 * its line and above (tests/layers.py, the repl-layers-wire test):
 *   strbuf.c clock.c channel.c addr.c  the string builder; the one clock
 *                               (seconds, monotonic); the channel's
 *                               frames; where the ranks reach the front end
 *   state.c                     a rank's STATE, written and parsed
 * (cli.h and trace-dump.h are header-only: the command line's
 * conventions; the chunk that dumps a trace.) */
#ifndef RMALAB_REPL_CHANNEL_H
#define RMALAB_REPL_CHANNEL_H

#include <stddef.h>

#define CHAN_MAX_FRAME (1u << 20) /* bytes after the length word */
#define CHAN_MAX_FIELDS 64
#define CHAN_TOKEN_LEN 64         /* hex digits */

/* Message types (the first byte of a frame). */
enum {
    CHAN_HELLO = 'H', CHAN_RUN = 'R', CHAN_OUT = 'O', CHAN_DONE = 'D',
    CHAN_STATUS = 'S', CHAN_STATE = 'T', CHAN_INTERRUPT = 'I',
    CHAN_COMPLETE = 'C', CHAN_MATCHES = 'M', CHAN_QUIT = 'Q', CHAN_BYE = 'B',
    CHAN_FILE = 'F', CHAN_EVENT = 'E', CHAN_HURRY = 'U',
};

/* A decoded message: fields point into the buffer it was decoded from and
 * are not NUL-terminated (use len). */
typedef struct {
    int type;
    int nfields;
    const char *field[CHAN_MAX_FIELDS];
    size_t len[CHAN_MAX_FIELDS];
} chan_msg;

/* Decode the frame at the start of buf[0, n): returns the frame's size in
 * bytes (> 0) and fills *m; 0 when more bytes are needed; -1 when the bytes
 * can never be a valid frame (bad length, unknown type, fields that overrun
 * the frame, more than CHAN_MAX_FIELDS). */
long chan_decode(const unsigned char *buf, size_t n, chan_msg *m);

/* A growable byte buffer. */
typedef struct {
    unsigned char *p;
    size_t len, cap;
} chan_buf;

void chan_buf_free(chan_buf *b);
/* Append one encoded frame; fields[i] has lens[i] bytes (lens may be NULL
 * for NUL-terminated fields). -1 when out of memory or too large. */
int chan_encode(chan_buf *b, int type, int nfields, const char *const *fields,
                const size_t *lens);

/* A connection: a socket and the bytes read from it but not yet decoded. */
typedef struct {
    int fd;
    chan_buf in;
    size_t off; /* decoded bytes at the start of in */
} chan_conn;

/* Read what the socket has (one read(2)): > 0 bytes read, 0 end of file,
 * -1 error (errno; EAGAIN when non-blocking and nothing is there). */
long chan_fill(chan_conn *c);
/* The next complete message: 1 (valid until the next chan_next/chan_fill),
 * 0 none yet, -1 malformed (drop the peer). */
int chan_next(chan_conn *c, chan_msg *m);
/* Encode and write one frame completely (retrying short writes); 0 or -1.
 * Callers that share a socket between threads hold their own lock. */
int chan_send(int fd, int type, int nfields, const char *const *fields, const size_t *lens);

/* Field i as a NUL-terminated copy in buf (cut to size - 1); "" if absent. */
const char *chan_field(const chan_msg *m, int i, char *buf, size_t size);
/* Constant-time comparison of a HELLO's token field with `token`. */
int chan_token_ok(const chan_msg *m, int i, const char *token);

#endif
