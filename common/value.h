/*
 * value.h - JSON values as a typed tree.
 *
 * JSON crosses the privilege line as this tree, never as JSON text: the
 * worker parses, the monitor reads typed nodes.  Numbers are int64 when
 * integral and exact (|n| <= 2^53), else double.  Strings are UTF-8,
 * validated by the worker and again by value_get(); they may not contain
 * NUL.  Object keys are unique.  Depth and node count are capped by both
 * the encoder and the decoder.
 */
#ifndef BNC_VALUE_H
#define BNC_VALUE_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/* Integers beyond this are not exact in a double, so JSON peers disagree:
 * the codec refuses them. */
#define VALUE_INT_EXACT	((int64_t)1 << 53)

enum value_type {
	V_NULL = 0,
	V_BOOL = 1,
	V_INT = 2,
	V_DOUBLE = 3,
	V_STRING = 4,
	V_ARRAY = 5,
	V_OBJECT = 6
};

struct member;

struct value {
	enum value_type	 type;
	union {
		int		 b;
		int64_t		 i;
		double		 d;
		struct {
			char	*p;	/* NUL-terminated */
			size_t	 len;
		} s;
		struct {
			struct value	**v;
			size_t		  n, cap;
		} a;
		struct {
			struct member	 *m;
			size_t		  n, cap;
		} o;
	} u;
};

struct member {
	char		*key;		/* NUL-terminated */
	size_t		 klen;
	struct value	*val;
};

/* Constructors: each returns a new node the caller owns. */
struct value	*value_null(void);
struct value	*value_bool(int);
struct value	*value_int(int64_t);
struct value	*value_double(double);
struct value	*value_string(const char *);
struct value	*value_stringn(const char *, size_t);
struct value	*value_array(void);
struct value	*value_object(void);
void		 value_free(struct value *);
struct value	*value_dup(const struct value *);

/* Appends take ownership of v. */
void		 value_array_append(struct value *a, struct value *v);
/* Fails with -BNC_ERR_DUP_KEY if the key exists (v is then freed). */
int		 value_object_set(struct value *o, const char *key,
		    struct value *v);
/* As above, replacing an existing key. */
void		 value_object_put(struct value *o, const char *key,
		    struct value *v);
/* Detaches and returns a member, or NULL. */
struct value	*value_object_take(struct value *o, const char *key);

/* Lookups return borrowed nodes or NULL (also when o is not an object). */
struct value	*value_get(const struct value *o, const char *key);
const char	*value_get_str(const struct value *o, const char *key);
int		 value_is(const struct value *, enum value_type);
int		 value_equal(const struct value *, const struct value *);
size_t		 value_count_nodes(const struct value *);
int		 value_depth(const struct value *);

/* Wire codec.  value_put checks caps too, so we never send what the peer
 * must refuse.  value_decode returns a new tree the caller owns. */
int	value_encode(struct buf *, const struct value *);
int	value_decode(struct buf *, struct value **, size_t maxbytes);

/* Canonical digest helper: appends a stable encoding (keys sorted). */
int	value_encode_canonical(struct buf *, const struct value *);

#endif /* BNC_VALUE_H */
