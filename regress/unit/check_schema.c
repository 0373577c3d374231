/*
 * check_schema.c - the argument names an input schema declares
 * (monitor/schema.c): through local $refs and allOf/anyOf/oneOf, and
 * incomplete where it cannot follow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "bounds.h"
#include "schema.h"
#include "testjson.h"
#include "value.h"

/* The declared names of schema text, joined by ' ', and completeness. */
static void
expect(const char *schema, const char *names, int complete)
{
	struct schema_props p;
	struct value *v = schema != NULL ? tj(schema) : NULL;
	char got[1024];
	size_t i, o = 0;

	schema_props_get(v, &p);
	got[0] = '\0';
	for (i = 0; i < p.n; i++)
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s",
		    i > 0 ? " " : "", p.names[i]);
	ck_assert_msg(strcmp(got, names) == 0, "%s: names \"%s\", want \"%s\"",
	    schema, got, names);
	ck_assert_msg(p.complete == complete, "%s: complete %d, want %d",
	    schema, p.complete, complete);
	for (i = 0; i < p.n; i++) {
		ck_assert(schema_props_has(&p, p.names[i]));
		ck_assert_ptr_nonnull(p.defs[i]);
	}
	schema_props_free(&p);
	value_free(v);
}

START_TEST(test_plain)
{
	expect(NULL, "", 1);
	expect("true", "", 1);
	expect("{}", "", 1);
	expect("{\"type\":\"object\"}", "", 1);
	expect("{\"type\":\"object\",\"properties\":{\"to\":{},\"body\":{}}}",
	    "to body", 1);
	/* not an object where properties should be: nothing declared */
	expect("{\"properties\":[\"to\"]}", "", 1);
}
END_TEST

START_TEST(test_composition)
{
	expect("{\"allOf\":[{\"properties\":{\"to\":{}}},"
	    "{\"properties\":{\"cc\":{}}}]}", "to cc", 1);
	expect("{\"anyOf\":[{\"properties\":{\"to\":{}}},"
	    "{\"properties\":{\"channel\":{}}}]}", "to channel", 1);
	expect("{\"properties\":{\"a\":{}},\"oneOf\":[{\"properties\":"
	    "{\"b\":{}}},{\"allOf\":[{\"properties\":{\"c\":{},\"a\":{}}}]}]}",
	    "a b c", 1);
	/* a branch list that is not a list cannot be read */
	expect("{\"properties\":{\"a\":{}},\"anyOf\":{\"properties\":"
	    "{\"b\":{}}}}", "a", 0);
}
END_TEST

START_TEST(test_refs)
{
	expect("{\"$ref\":\"#/$defs/Mail\",\"$defs\":{\"Mail\":"
	    "{\"properties\":{\"to\":{},\"reply_to\":{}}}}}", "to reply_to", 1);
	expect("{\"$ref\":\"#/definitions/M\",\"definitions\":{\"M\":"
	    "{\"allOf\":[{\"$ref\":\"#/definitions/N\"}]},\"N\":"
	    "{\"properties\":{\"webhook\":{}}}}}", "webhook", 1);
	/* escapes of a JSON pointer in a URI fragment */
	expect("{\"$ref\":\"#/$defs/a~1b~0c%20d\",\"$defs\":{\"a/b~c d\":"
	    "{\"properties\":{\"x\":{}}}}}", "x", 1);
	/* array index */
	expect("{\"$ref\":\"#/x/1\",\"x\":[{},{\"properties\":{\"y\":{}}}]}",
	    "y", 1);
	/* a cycle is read once and is not a failure */
	expect("{\"properties\":{\"a\":{}},\"allOf\":[{\"$ref\":\"#\"}]}", "a",
	    1);
	/* what cannot be followed leaves the set incomplete */
	expect("{\"properties\":{\"a\":{}},\"$ref\":"
	    "\"https://evil.example/s.json\"}", "a", 0);
	expect("{\"$ref\":\"#/$defs/none\"}", "", 0);
	expect("{\"$ref\":\"#anchor\"}", "", 0);
	expect("{\"$ref\":\"#/a~2\",\"a~2\":{}}", "", 0);
	expect("{\"$ref\":\"#/x/01\",\"x\":[{},{}]}", "", 0);
	expect("{\"$ref\":\"#/x/%4\",\"x\":{}}", "", 0);
	expect("{\"$ref\":7}", "", 0);
}
END_TEST

/* BNC_SCHEMA_DEPTH_MAX levels of allOf are read; one more is not. */
START_TEST(test_depth)
{
	char s[4096];
	size_t o;
	int i, n;

	for (n = BNC_SCHEMA_DEPTH_MAX; n <= BNC_SCHEMA_DEPTH_MAX + 1; n++) {
		o = 0;
		for (i = 0; i < n; i++)
			o += (size_t)snprintf(s + o, sizeof(s) - o,
			    "{\"allOf\":[");
		o += (size_t)snprintf(s + o, sizeof(s) - o,
		    "{\"properties\":{\"deep\":{}}}");
		for (i = 0; i < n; i++)
			o += (size_t)snprintf(s + o, sizeof(s) - o, "]}");
		ck_assert_uint_lt(o, sizeof(s));
		expect(s, n == BNC_SCHEMA_DEPTH_MAX ? "deep" : "",
		    n == BNC_SCHEMA_DEPTH_MAX);
	}
}
END_TEST

/* BNC_SCHEMA_NODES_MAX subschemas are read; more leave it incomplete. */
START_TEST(test_nodes)
{
	struct schema_props p;
	struct value *s, *all, *b, *props;
	char name[32];
	int i, n;

	for (n = BNC_SCHEMA_NODES_MAX - 1; n <= BNC_SCHEMA_NODES_MAX; n++) {
		s = value_object();
		all = value_array();
		for (i = 0; i < n; i++) {
			b = value_object();
			props = value_object();
			snprintf(name, sizeof(name), "p%d", i);
			value_object_put(props, name, value_object());
			value_object_put(b, "properties", props);
			value_array_append(all, b);
		}
		value_object_put(s, "anyOf", all);
		schema_props_get(s, &p);
		/* the root is a subschema too */
		ck_assert_int_eq(p.complete, n < BNC_SCHEMA_NODES_MAX);
		ck_assert_uint_eq(p.n, (size_t)(n < BNC_SCHEMA_NODES_MAX ? n :
		    BNC_SCHEMA_NODES_MAX - 1));
		schema_props_free(&p);
		value_free(s);
	}
}
END_TEST

static Suite *
schema_suite(void)
{
	Suite *s = suite_create("schema");
	TCase *tc;

	tc = tcase_create("core");
	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_composition);
	tcase_add_test(tc, test_refs);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_nodes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(schema_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
