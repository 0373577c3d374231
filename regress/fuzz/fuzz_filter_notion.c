/*
 * fuzz_filter_notion.c - Notion's response filters and error parser
 * (carrier/notion-filter.c) on any body, through answer_http(); and the
 * audit's no-op update built from any page (fuzz_filter.h has the input's
 * layout).  A typed field must have its work.h shape; the no-op body
 * must be a JSON object that sets at most one property, or in_trash.
 */
#include <cjson/cJSON.h>

#include "fuzz_filter.h"
#include "validate.h"

static const struct fuzz_filter notion_filters[] = {
	{ "database", notion_filter_database, BNC_CARRIER_RESPONSE_ONE },
	{ "query", notion_filter_query, BNC_CARRIER_RESPONSE_MAX },
	{ "page", notion_filter_page, BNC_CARRIER_RESPONSE_ONE },
	{ "comments", notion_filter_comments, BNC_CARRIER_RESPONSE_MAX },
	{ "comment", notion_filter_comment, BNC_CARRIER_RESPONSE_ONE },
	{ "noop", notion_filter_noop, BNC_CARRIER_RESPONSE_ONE },
};
#define NFILTERS (sizeof(notion_filters) / sizeof(notion_filters[0]))

static const char *const noop_ops[] = {
	"owner", "due", "status", "property", "trash",
};

static int
is_notion_id(const char *s)
{
	char id[VALID_NOTION_ID_LEN + 1];
	const char *why;

	return s != NULL && valid_notion_id(s, strlen(s), id, &why) == 0 &&
	    strcmp(id, s) == 0;
}

/* TASK of work.h. */
static void
check_task(const struct value *t)
{
	const struct value *o = value_get(t, "owners");
	size_t i;

	FUZZ_CHECK(value_is(t, V_OBJECT) && t->u.o.n == 7);
	FUZZ_CHECK(is_notion_id(fuzz_str(t, "id")));
	FUZZ_CHECK(fuzz_str(t, "title") != NULL &&
	    strlen(fuzz_str(t, "title")) <= BNC_CARRIER_TITLE_MAX);
	FUZZ_CHECK(fuzz_str_or_null(t, "status") &&
	    fuzz_str_or_null(t, "due") && fuzz_str_or_null(t, "url") &&
	    fuzz_str_or_null(t, "last_edited_time"));
	FUZZ_CHECK(value_is(o, V_ARRAY) && o->u.a.n <= BNC_CARRIER_OWNERS_MAX);
	for (i = 0; i < o->u.a.n; i++)
		FUZZ_CHECK(value_is(o->u.a.v[i], V_STRING));
}

static void
check_list(const struct value *d, const char *key)
{
	const struct value *l = value_get(d, key);

	FUZZ_CHECK(value_is(l, V_ARRAY) && l->u.a.n <= BNC_CARRIER_LIST_MAX);
	FUZZ_CHECK(value_is(value_get(d, "has_more"), V_BOOL));
	FUZZ_CHECK(fuzz_str_or_null(d, "next_cursor"));
}

static void
check_data(size_t which, const struct value *d, int filtered)
{
	const struct value *l, *e;
	size_t i;

	switch (which) {
	case 0:
		l = value_get(d, "data_sources");
		FUZZ_CHECK(d->u.o.n == 1 && value_is(l, V_ARRAY));
		for (i = 0; i < l->u.a.n; i++) {
			e = l->u.a.v[i];
			FUZZ_CHECK(is_notion_id(fuzz_str(e, "id")) &&
			    fuzz_str_or_null(e, "name"));
		}
		break;
	case 1:
		check_list(d, "tasks");
		l = value_get(d, "tasks");
		for (i = 0; i < l->u.a.n; i++) {
			check_task(l->u.a.v[i]);
			if (filtered)
				FUZZ_CHECK(fuzz_str(l->u.a.v[i], "status") !=
				    NULL && strcmp(fuzz_str(l->u.a.v[i],
				    "status"), "Done") == 0);
		}
		break;
	case 2:
		check_task(d);
		break;
	case 3:
		check_list(d, "comments");
		l = value_get(d, "comments");
		for (i = 0; i < l->u.a.n; i++) {
			e = l->u.a.v[i];
			FUZZ_CHECK(is_notion_id(fuzz_str(e, "id")) &&
			    fuzz_str(e, "text") != NULL &&
			    strlen(fuzz_str(e, "text")) <=
			    BNC_CARRIER_TEXT_OUT_MAX);
		}
		break;
	case 4:
		FUZZ_CHECK(d->u.o.n == 1 && is_notion_id(fuzz_str(d, "id")));
		break;
	default:
		FUZZ_CHECK(d->u.o.n == 1 &&
		    value_is(value_get(d, "written"), V_BOOL));
		break;
	}
}

/* The audit's update from any page: an object changing at most one
 * thing, and only to what the page says it is. */
static void
check_noop_body(const uint8_t *data, size_t size)
{
	struct http_resp got;
	struct buf *out = buf_new();
	cJSON *j, *props;

	memset(&got, 0, sizeof(got));
	got.status = 200;
	got.body = buf_from(data + 3, size - 3);
	FUZZ_CHECK(notion_filter_noop_body(&got,
	    noop_ops[data[2] % (sizeof(noop_ops) / sizeof(noop_ops[0]))],
	    out) == 0);
	FUZZ_CHECK((j = cJSON_ParseWithLength((const char *)buf_ptr(out),
	    buf_len(out))) != NULL && cJSON_IsObject(j));
	FUZZ_CHECK(cJSON_GetArraySize(j) == 1);
	props = cJSON_GetObjectItemCaseSensitive(j, "properties");
	FUZZ_CHECK((cJSON_IsObject(props) && cJSON_GetArraySize(props) <= 1) ||
	    cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(j, "in_trash")));
	cJSON_Delete(j);
	buf_free(out);
	buf_free(got.body);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg_carrier_result res;
	size_t which;

	if (size < 3)
		return 0;
	which = data[0] % (NFILTERS + 1);
	if (which == NFILTERS) {
		check_noop_body(data, size);
		return 0;
	}
	/* byte 0 has chosen: the run takes that row alone */
	fuzz_filter_run(&notion_filters[which], 1, notion_filter_error, data,
	    size, &res);
	if (res.status == CARRIER_OK)
		check_data(which, res.data, (data[2] & 2) != 0);
	msg_carrier_result_free(&res);
	return 0;
}
