/*
 * memory.h - one account of the bytes the monitor holds for a session
 * (bouncer.yaml(5) max_session_memory; DESIGN 1.1).
 *
 * The taint index has a share of its own, the bound of its memory at
 * its cap (taint_memory_bound), set aside before anything else: nothing
 * a client or an upstream sends can squeeze it into dropping output
 * early.  Everything else the monitor keeps past the event that brought
 * it (requests queued during start-up, calls held for a changed tool
 * list or for a human, approvals, the names and tools upstreams listed,
 * requests in flight, what waits on a queue toward a child) is charged
 * here while it is kept.  A charge that does not fit is refused and the
 * caller answers with an error or a denied call, with its audit row:
 * the session goes on, and the OOM killer never decides.
 *
 * What one message needs while it is handled (its frame, its tree, its
 * JSON toward an upstream) is not charged: a few times max_message.
 * Sizes are estimates from above: each allocation counts a malloc
 * header as well.
 */
#ifndef BNC_MEMORY_H
#define BNC_MEMORY_H

#include <stddef.h>

struct rpc;
struct value;

struct memacct {
	size_t	used;
	size_t	cap;
	size_t	peak;
};

/* What a client is told when a request finds no room. */
#define MEM_FULL_ERROR	"Internal error: the session's memory is full " \
			"(max_session_memory); request not kept"
/* The reason of a call denied for the same cause. */
#define MEM_FULL_REASON	"the session's memory is full (max_session_memory)"

void	mem_init(struct memacct *, size_t cap);
/* Charges n bytes: 0, or -BNC_ERR_TOO_LARGE with nothing charged. */
int	mem_charge(struct memacct *, size_t n);
/* Charges n bytes that cannot be refused, past the cap if need be. */
void	mem_force(struct memacct *, size_t n);
/* Would n more bytes fit? */
int	mem_fits(const struct memacct *, size_t n);
void	mem_release(struct memacct *, size_t n);

/* The bytes a value tree, a string or one allocation of n bytes take. */
size_t	mem_value(const struct value *);
/* A message's fields, and its slot in an array of them. */
size_t	mem_rpc(const struct rpc *);
size_t	mem_string(const char *);
size_t	mem_alloc(size_t n);

#endif /* BNC_MEMORY_H */
