/*
 * idscan.h - the id of a JSON-RPC line too long to parse.
 *
 * A line over max_message is never held whole (lines.c); its bytes pass
 * through an idscan as they are dropped, so that the error it gets can
 * carry the request's id (DESIGN 4) and an upstream's over-long answer
 * can fail the call it answers instead of leaving that call waiting.
 */
#ifndef BNC_WORKER_IDSCAN_H
#define BNC_WORKER_IDSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct rpc_id;

struct idscan {
	int	 state;		/* enum in idscan.c */
	int	 depth;		/* containers open around the position */
	uint64_t stack;		/* per open container: 1 object, 0 array */
	int	 in_str;	/* inside a string (of any depth) */
	int	 esc;		/* after a backslash in that string */
	int	 member;	/* the top-level member being read */
	char	 key[8];	/* its name, if short */
	size_t	 klen;
	char	 val[BNC_ID_STR_MAX + 1];	/* the id's text */
	size_t	 vlen;
	int	 id_kind;	/* 0 none, 1 number, 2 string, 3 null */
	int	 ids;		/* "id" members seen */
	int	 response;	/* a top-level "result" or "error" seen */
	int	 bad;		/* not what a JSON-RPC object looks like */
};

void	idscan_init(struct idscan *);
void	idscan_feed(struct idscan *, const uint8_t *, size_t);
/*
 * After the whole line: 1 and *id (RPC_ID_INT, RPC_ID_STR or
 * RPC_ID_NULL; a string is allocated) when exactly one top-level "id"
 * was read whole and well formed, else 0 and *id of type RPC_ID_NULL.
 * *was_response: the line had a top-level "result" or "error".
 */
int	idscan_result(const struct idscan *, struct rpc_id *id,
	    int *was_response);

#endif /* BNC_WORKER_IDSCAN_H */
