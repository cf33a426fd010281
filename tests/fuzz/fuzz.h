/* Shared by the fuzz targets (tests/fuzz, docs/testing.md): a check that
 * aborts with a message, so that libFuzzer keeps the input as a crash, and
 * a reader that takes bytes, small numbers and strings off the front of the
 * input. Header-only and private to tests/fuzz. */
#ifndef RMALAB_FUZZ_H
#define RMALAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond, ...)                                                  \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* The input, consumed from the front; reads past the end give zeros. */
typedef struct {
    const uint8_t *p;
    size_t n;
} fuzz_in;

static inline int fuzz_left(const fuzz_in *in)
{
    return in->n > 0;
}

static inline unsigned fuzz_byte(fuzz_in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static inline unsigned fuzz_u16(fuzz_in *in)
{
    unsigned hi = fuzz_byte(in);
    return hi << 8 | fuzz_byte(in);
}

/* Up to `max` bytes: a length byte (scaled when max > 255), then that many
 * bytes, fewer when the input ends first. *n receives the count. */
static inline const char *fuzz_bytes(fuzz_in *in, size_t max, size_t *n)
{
    size_t want = max > 255 ? fuzz_u16(in) % (max + 1) : fuzz_byte(in) % (max + 1);
    if (want > in->n)
        want = in->n;
    const char *s = (const char *)in->p;
    in->p += want;
    in->n -= want;
    *n = want;
    return s;
}

#endif
