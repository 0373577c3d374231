/*
 * check_memory.c - the session's memory account (monitor/memory.c):
 * a charge fits up to the cap and not a byte past it, a refused charge
 * changes nothing, releases give back, and the estimates of what a
 * tree or a message holds are never below the bytes it stores.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "memory.h"
#include "msg.h"
#include "value.h"

START_TEST(test_account)
{
	struct memacct m;

	mem_init(&m, 1000);
	ck_assert(mem_fits(&m, 1000));
	ck_assert(!mem_fits(&m, 1001));
	ck_assert_int_eq(mem_charge(&m, 600), 0);
	ck_assert_int_eq(mem_charge(&m, 401), -BNC_ERR_TOO_LARGE);
	ck_assert_uint_eq(m.used, 600);
	ck_assert_int_eq(mem_charge(&m, 400), 0);
	ck_assert_uint_eq(m.used, 1000);
	ck_assert(!mem_fits(&m, 1));
	ck_assert(mem_fits(&m, 0));
	mem_release(&m, 1000);
	ck_assert_uint_eq(m.used, 0);
	ck_assert_uint_eq(m.peak, 1000);
	/* forced past the cap: nothing more fits until it is released */
	mem_force(&m, 1500);
	ck_assert(!mem_fits(&m, 0));
	ck_assert_int_eq(mem_charge(&m, 1), -BNC_ERR_TOO_LARGE);
	mem_release(&m, 1500);
	ck_assert(mem_fits(&m, 1000));
	/* more released than held never wraps */
	mem_release(&m, 5);
	ck_assert_uint_eq(m.used, 0);
	/* a charge near SIZE_MAX does not overflow the sum */
	ck_assert_int_eq(mem_charge(&m, 10), 0);
	ck_assert_int_eq(mem_charge(&m, (size_t)-1), -BNC_ERR_TOO_LARGE);
}
END_TEST

START_TEST(test_estimates)
{
	struct value *o, *a, *s;
	struct rpc m;
	char *big;
	size_t i;

	big = malloc(100001);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 100000);
	big[100000] = '\0';
	s = value_string(big);
	ck_assert_uint_ge(mem_value(s), 100001 + sizeof(*s));
	o = value_object();
	a = value_array();
	for (i = 0; i < 1000; i++)
		value_array_append(a, value_int((int64_t)i));
	value_object_put(o, "list", a);
	value_object_put(o, "text", s);
	/* every node, every slot, every key, every string */
	ck_assert_uint_ge(mem_value(o), 100001 + 1001 * sizeof(struct value) +
	    1000 * sizeof(struct value *) + sizeof(struct member) + 10);
	ck_assert_uint_eq(mem_value(NULL), 0);
	ck_assert_uint_eq(mem_string(NULL), 0);
	ck_assert_uint_ge(mem_string("abc"), 4);
	ck_assert_uint_ge(mem_alloc(0), 1);

	memset(&m, 0, sizeof(m));
	m.kind = RPC_REQUEST;
	m.id.type = RPC_ID_STR;
	m.id.s = "an id";
	m.method = "tools/call";
	m.params = o;
	ck_assert_uint_ge(mem_rpc(&m), sizeof(m) + mem_value(o) + 6 + 11);
	value_free(o);
	free(big);
}
END_TEST

static Suite *
memory_suite(void)
{
	Suite *su = suite_create("memory");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_account);
	tcase_add_test(tc, test_estimates);
	suite_add_tcase(su, tc);
	return su;
}

int
main(void)
{
	SRunner *sr = srunner_create(memory_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
