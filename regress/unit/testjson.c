/*
 * testjson.c - JSON text to a value tree, for unit tests only (see
 * testjson.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <check.h>
#include <cjson/cJSON.h>

#include "testjson.h"
#include "value.h"

struct value *
testjson_value(const cJSON *j)
{
	struct value *v;
	const cJSON *c;
	double d;

	if (cJSON_IsNull(j))
		return value_null();
	if (cJSON_IsBool(j))
		return value_bool(cJSON_IsTrue(j));
	if (cJSON_IsNumber(j)) {
		d = j->valuedouble;
		if (d == floor(d) && fabs(d) <= 9007199254740992.0)
			return value_int((int64_t)d);
		return value_double(d);
	}
	if (cJSON_IsString(j))
		return value_string(j->valuestring);
	if (cJSON_IsArray(j)) {
		v = value_array();
		cJSON_ArrayForEach(c, j)
			value_array_append(v, testjson_value(c));
		return v;
	}
	v = value_object();
	cJSON_ArrayForEach(c, j)
		value_object_put(v, c->string, testjson_value(c));
	return v;
}

struct value *
tj(const char *text)
{
	cJSON *j;
	struct value *v;

	j = cJSON_Parse(text);
	ck_assert_msg(j != NULL, "test JSON does not parse: %s", text);
	v = testjson_value(j);
	cJSON_Delete(j);
	return v;
}
