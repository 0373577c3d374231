/*
 * testjson.h - JSON text to a value tree, for unit tests only.
 *
 * The monitor never parses JSON (the worker does, sandboxed); tests build
 * their trees from readable JSON text with cJSON instead.  This object
 * lives in regress/unit/, so regress/linker.sh still finds no JSON parser
 * in any monitor object.
 */
#ifndef BNC_TESTJSON_H
#define BNC_TESTJSON_H

struct value;
struct cJSON;

/* A new tree of the cJSON node; integral numbers become V_INT. */
struct value	*testjson_value(const struct cJSON *);
/* A new tree of text, which must be valid JSON (else the test fails). */
struct value	*tj(const char *text);

#endif /* BNC_TESTJSON_H */
