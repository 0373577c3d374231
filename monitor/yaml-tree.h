/*
 * yaml-tree.h - a small node tree over libyaml, with line numbers.
 *
 * Only for files an administrator wrote (config, policy, registry), read
 * at start-up before any untrusted input.  Anchors, aliases and tags are
 * refused: the files bouncer reads need none, and they are how YAML
 * surprises its readers.
 */
#ifndef BNC_YAML_TREE_H
#define BNC_YAML_TREE_H

#include <stdarg.h>
#include <stddef.h>

enum ynode_type {
	YNODE_SCALAR = 1,
	YNODE_SEQUENCE = 2,
	YNODE_MAPPING = 3
};

struct ynode {
	enum ynode_type	 type;
	unsigned long	 line;		/* 1-based */
	char		*scalar;	/* YNODE_SCALAR */
	int		 quoted;	/* scalar was quoted: never a bool/int */
	struct ynode	**items;	/* SEQUENCE: items; MAPPING: k, v, k, v */
	size_t		 n;		/* number of items (pairs * 2) */
};

/*
 * Parse a file of at most maxbytes.  An empty file yields *rootp == NULL.
 * On error returns -BNC_ERR_CONFIG with a message "FILE:LINE: ..." in
 * errbuf.  The tree is the caller's; free with ynode_free().
 */
int	yaml_load_file(const char *path, size_t maxbytes, struct ynode **rootp,
	    char *errbuf, size_t errlen);
/* As yaml_load_file, for bytes already read; name is used in messages. */
int	yaml_load_buf(const char *name, const char *data, size_t len,
	    struct ynode **rootp, char *errbuf, size_t errlen);
void	ynode_free(struct ynode *);

/* Scalar conversions: 0 on success, -BNC_ERR_CONFIG if the type is wrong. */
int	ynode_bool(const struct ynode *, int *);
int	ynode_int(const struct ynode *, long long min, long long max,
	    long long *);
int	ynode_string(const struct ynode *, const char **);
const char *ynode_type_name(const struct ynode *);
/*
 * Formats "FILE:LINE: KEY: message" into err (LINE of n, or 1 without
 * one) and returns -BNC_ERR_CONFIG: the one shape of every error in an
 * administrator's YAML file.
 */
int	ynode_fail(char *err, size_t errlen, const char *path,
	    const struct ynode *n, const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 6, 7)));
int	ynode_vfail(char *err, size_t errlen, const char *path,
	    const struct ynode *n, const char *key, const char *fmt, va_list)
	    __attribute__((format(printf, 6, 0)));

#endif /* BNC_YAML_TREE_H */
