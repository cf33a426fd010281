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

#include <stdbool.h>
#include <string.h>

#include <lua.h>

enum { T_NIL, T_FALSE, T_TRUE, T_INT, T_FLT, T_STR, T_TAB, T_IARR, T_FARR, T_BUF, T_NTAGS };

/* The number at idx (known to be one: lua_type said so) as its 9 bytes,
 * the tag and then the 8: the encoder writes numbers so, and a message of
 * one number (lp2p.c) too. One read for a float with a fraction, the
 * common float (lua_isinteger first was a call more for every float); a
 * whole one asks its subtype, and an integer past 2^53, which a double
 * cannot hold, is read again as itself. */
static inline void lrm_number_code(lua_State *L, int idx, unsigned char x[9])
{
    lua_Number d = lua_tonumberx(L, idx, NULL);
    bool small = d > -0x1p53 && d < 0x1p53; /* false for nan */
    lua_Integer v = small ? (lua_Integer)d : 0;
    if ((small ? (lua_Number)v == d : d == d) && lua_isinteger(L, idx)) {
        if (!small)
            v = lua_tointegerx(L, idx, NULL);
        x[0] = T_INT;
        memcpy(x + 1, &v, 8);
    } else { /* a fraction, a whole float (-0.0 too), inf, nan */
        x[0] = T_FLT;
        memcpy(x + 1, &d, 8);
    }
}

/* The 8 bytes at p pushed as an integer (`ints`) or a float: the decoder
 * reads numbers so, and a message of one number (lp2p.c) too. */
static inline void lrm_number_push(lua_State *L, const unsigned char *p, bool ints)
{
    if (ints) {
        lua_Integer v;
        memcpy(&v, p, 8);
        lua_pushinteger(L, v);
    } else {
        lua_Number v;
        memcpy(&v, p, 8);
        lua_pushnumber(L, v);
    }
}

#endif
