/*
 * body.h - a request's JSON body, built with cJSON and never by hand.
 */
#ifndef BNC_BODY_H
#define BNC_BODY_H

#include <cjson/cJSON.h>

struct buf;

/* Appends o's compact JSON text to out and deletes o (NULL: an
 * allocation failed while building it).  Returns 0 or -1. */
int	body_put(struct buf *out, cJSON *o);

#endif /* BNC_BODY_H */
