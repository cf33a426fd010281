/* The value codec's bytes, which the encoder (lcodec.c) writes and the
 * decoder (ldecode.c) reads: Lua values to bytes and back, for
 * communicators' collectives and messages (lcoll.c, lp2p.c).
 *
 * Values are nil, booleans, integers and floats (the subtype is kept),
 * strings (any bytes), typed buffers (lbuffer.c: their type and elements;
 * a new buffer comes out), and tables of these, nested, whose keys are
 * booleans, numbers or strings.
 *
 * The bytes, one tag byte before each value:
 *   NIL FALSE TRUE                  nothing more
 *   INT FLT                         8 bytes, native order (one machine type:
 *                                   MPI's homogeneous case)
 *   STR                             varint length, the bytes
 *   TAB                             varint n, u32 h, n values (t[1..n]),
 *                                   h key/value pairs
 *   IARR FARR                       varint n, u32 h, n raw int64 or double,
 *                                   h pairs: an array of numbers of one
 *                                   subtype, 8 bytes per element
 *   BUF                             u8 type (rmalab_type), varint n, n
 *                                   elements of that type, raw
 * A varint is 7 bits a byte, the lowest first, the top bit set on every
 * byte but the last. */
#ifndef LCODEC_H
#define LCODEC_H

enum { T_NIL, T_FALSE, T_TRUE, T_INT, T_FLT, T_STR, T_TAB, T_IARR, T_FARR, T_BUF, T_NTAGS };

#endif
