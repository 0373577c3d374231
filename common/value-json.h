/*
 * value-json.h - JSON text from value trees and JSON-RPC messages.
 *
 * Building only: the monitor writes with it the lines its client and its
 * upstreams read.  Nothing here ever parses JSON text; the monitor must
 * stay free of JSON parsers (STYLE rule 2).
 */
#ifndef BNC_VALUE_JSON_H
#define BNC_VALUE_JSON_H

#include <cjson/cJSON.h>

struct buf;
struct rpc;
struct rpc_out;
struct value;

/*
 * A new cJSON tree equal to v; the caller owns it (cJSON_Delete).  Strings
 * and keys are copied.  An integer outside the int range is a cJSON_Raw
 * node holding its decimal text, because cJSON would print it through a
 * double format ("1e+15").  NULL if v is NULL, deeper than
 * BNC_VALUE_DEPTH_MAX, or malformed.
 */
cJSON	*value_to_cjson(const struct value *v);

/*
 * Appends the compact JSON text of v (no newline) to out: the bytes
 * cJSON_PrintUnformatted(value_to_cjson(v)) would print, except that a
 * double takes the shortest of %.15g, %.16g, %.17g that reads back
 * exactly (cJSON tries only 15 and 17).  Integers print as integers.
 * Returns 0 or -BNC_ERR_*; on error out is left as it was.
 */
int	value_render(struct buf *out, const struct value *v);
/*
 * The same, canonical (DESIGN 7): every object's members in the byte
 * order of their keys, so two trees that are equal render the same
 * bytes whatever order their members came in.  A consent token's
 * target and an out-of-band approval's arguments are hashed in this
 * form, by the monitor and by bouncer-issue-consent alike.
 */
int	value_render_canonical(struct buf *out, const struct value *v);

/*
 * Appends one JSON-RPC line for m, ending in '\n', to out:
 *   request       {"jsonrpc":"2.0","id":ID,"method":M[,"params":P]}
 *   notification  {"jsonrpc":"2.0","method":M[,"params":P]}
 *   result        {"jsonrpc":"2.0","id":ID,"result":R}
 *   error         {"jsonrpc":"2.0","id":ID|null,"error":{"code":C,
 *                  "message":S[,"data":D]}}
 * The line holds no raw newline.  Returns 0 or -BNC_ERR_* (a field the
 * kind requires is missing, a value is too deep, out is full); on error
 * out is left as it was.
 */
int	rpc_out_render(struct buf *out, const struct rpc_out *m);
/*
 * The same, refusing what the IPC codec (msg_rpc_out_put) refuses: a
 * string or key with a NUL or not UTF-8, an integer beyond
 * VALUE_INT_EXACT, a non-finite double, more than BNC_VALUE_NODES_MAX
 * nodes, a method, error message or string id over its cap, an id that
 * does not fit the kind.  The client's lines are rendered so: until the
 * monitor wrote them itself, each crossed to the client worker as a
 * frame, and what the codec refused the client never read.  For every
 * message it accepts, the bytes are rpc_out_render()'s, which are those
 * rpc_render() prints for the message decoded from its frame.
 */
int	rpc_out_render_strict(struct buf *out, const struct rpc_out *m);
int	rpc_render(struct buf *out, const struct rpc *m);

#endif /* BNC_VALUE_JSON_H */
