/*
 * reqline.h - the second check of a carrier's request (DESIGN 8): the
 * finished method and path (with its query) must match one of the
 * carrier's anchored, compiled-in PCRE2 patterns.  The table and its
 * validators are the first check; this one is written independently of
 * them, so that one bug is not enough to send a forbidden request.
 */
#ifndef BNC_REQLINE_H
#define BNC_REQLINE_H

enum reqline_set {
	RL_NOTION_READ = 1,
	RL_NOTION_COMMENT,
	RL_NOTION_AUDIT,	/* -m audit: PATCH /v1/pages/{id} and GET page */
	RL_GITHUB,
	RL_SLACK
};

/* Compiles the set's patterns (before the sandbox): 0, or -1 with err. */
int	reqline_init(enum reqline_set, char *err, size_t errlen);
/* 0 if "METHOD PATH" matches a pattern of the set, else -1. */
int	reqline_check(const char *method, const char *path);
/* Frees the patterns (tests). */
void	reqline_free(void);

#endif /* BNC_REQLINE_H */
