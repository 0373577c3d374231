/*
 * notion-filter.c - Notion's answers as the typed fields of work.h.
 *
 * A task's fields are found by property TYPE, not by name, because the
 * names are the workspace's: the first "title" property is the title,
 * the first "status" property (or, without one, the first "select") the
 * status, the first "date" property's start the due date, the first
 * "people" property's ids the owners.  Page and comment ids must be
 * Notion ids and are passed on in their canonical form.  Everything
 * else is cleaned and capped (field.c).  This file must never pass on
 * a raw body, and never keep a property it was not asked for.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "answer.h"
#include "args.h"
#include "body.h"
#include "bounds.h"
#include "buf.h"
#include "field.h"
#include "filter.h"
#include "msg.h"
#include "utf8.h"
#include "validate.h"
#include "value.h"
#include "xmalloc.h"

static const cJSON *
item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A Notion id from the answer, canonical; NULL if it is not one. */
static struct value *
notion_id_value(const cJSON *o, const char *key)
{
	char id[VALID_NOTION_ID_LEN + 1];
	const char *s, *why;

	if ((s = field_str(o, key)) == NULL ||
	    valid_notion_id(s, strlen(s), id, &why) != 0)
		return NULL;
	return value_string(id);
}

/* The plain_text of a rich-text array, joined, cleaned, capped. */
static struct value *
rich_text_value(const cJSON *arr, size_t max, enum field_mode mode)
{
	const cJSON *e;
	struct buf *b = buf_new();
	struct value *v;
	const char *s;
	size_t n;
	char *c;

	cJSON_ArrayForEach(e, arr) {
		if ((s = field_str(e, "plain_text")) == NULL)
			continue;
		/* enough raw bytes for max clean ones; the rest is cut */
		n = strlen(s);
		if (buf_len(b) + n > max)
			n = max - buf_len(b);
		if (buf_put(b, s, n) != 0 || buf_len(b) >= max)
			break;
	}
	c = field_clean(buf_len(b) > 0 ? (const char *)buf_ptr(b) : "",
	    buf_len(b), max, mode, &n);
	v = value_stringn(c, n);
	free(c);
	buf_free(b);
	return v;
}

/* The first property of this type, or NULL. */
static const cJSON *
first_property(const cJSON *props, const char *type)
{
	const cJSON *p;
	const char *t;

	cJSON_ArrayForEach(p, props)
		if ((t = field_str(p, "type")) != NULL && strcmp(t, type) == 0)
			return p;
	return NULL;
}

/* TASK of work.h from a page object; NULL if it is not a page. */
static struct value *
task(const cJSON *page)
{
	const cJSON *props, *p, *sel, *e;
	struct value *t, *id, *owners;
	size_t n = 0;

	if ((id = notion_id_value(page, "id")) == NULL)
		return NULL;
	props = item(page, "properties");
	t = value_object();
	value_object_put(t, "id", id);
	if ((p = first_property(props, "title")) != NULL)
		value_object_put(t, "title", rich_text_value(item(p, "title"),
		    BNC_CARRIER_TITLE_MAX, FIELD_LINE));
	else
		value_object_put(t, "title", value_string(""));
	if ((p = first_property(props, "status")) != NULL)
		sel = item(p, "status");
	else if ((p = first_property(props, "select")) != NULL)
		sel = item(p, "select");
	else
		sel = NULL;
	value_object_put(t, "status", field_value_or_null(sel, "name",
	    BNC_CARRIER_NAME_MAX, FIELD_LINE));
	p = first_property(props, "date");
	value_object_put(t, "due", field_value_or_null(item(p, "date"),
	    "start", BNC_CARRIER_ID_MAX, FIELD_LINE));
	owners = value_array();
	if ((p = first_property(props, "people")) != NULL)
		cJSON_ArrayForEach(e, item(p, "people")) {
			if (n == BNC_CARRIER_OWNERS_MAX)
				break;
			if (field_str(e, "id") == NULL)
				continue;
			value_array_append(owners, field_value(field_str(e,
			    "id"), BNC_CARRIER_ID_MAX, FIELD_LINE));
			n++;
		}
	value_object_put(t, "owners", owners);
	value_object_put(t, "url", field_value_or_null(page, "url",
	    BNC_CARRIER_URL_MAX, FIELD_LINE));
	value_object_put(t, "last_edited_time", field_value_or_null(page,
	    "last_edited_time", BNC_CARRIER_ID_MAX, FIELD_LINE));
	return t;
}

/* A list's has_more and next_cursor, onto out. */
static int
list_tail(const cJSON *j, struct value *out)
{
	const cJSON *more = item(j, "has_more");

	if (!cJSON_IsBool(more))
		return -1;
	value_object_put(out, "has_more", value_bool(cJSON_IsTrue(more)));
	value_object_put(out, "next_cursor", field_value_or_null(j,
	    "next_cursor", BNC_CARRIER_ID_MAX, FIELD_LINE));
	return 0;
}

/* Is the body an object of this "object" kind? */
static int
is_object(const cJSON *j, const char *kind)
{
	const char *s = field_str(j, "object");

	return cJSON_IsObject(j) && s != NULL && strcmp(s, kind) == 0;
}

int
notion_filter_database(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	const cJSON *e;
	cJSON *j;
	struct value *list, *ds, *id;
	size_t n = 0;
	int r = -1;

	(void)args;
	*out = NULL;
	if ((j = field_json(resp)) == NULL || !is_object(j, "database") ||
	    !cJSON_IsArray(item(j, "data_sources")))
		goto out;
	*out = value_object();
	list = value_array();
	value_object_put(*out, "data_sources", list);
	cJSON_ArrayForEach(e, item(j, "data_sources")) {
		if (n++ == BNC_CARRIER_LIST_MAX)
			break;
		if ((id = notion_id_value(e, "id")) == NULL)
			goto out;
		ds = value_object();
		value_object_put(ds, "id", id);
		value_object_put(ds, "name", field_value_or_null(e, "name",
		    BNC_CARRIER_NAME_MAX, FIELD_LINE));
		value_array_append(list, ds);
	}
	r = 0;
 out:
	cJSON_Delete(j);
	return r;
}

int
notion_filter_query(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	const struct carrier_arg *want = args_get(args, "status");
	const struct value *st;
	const cJSON *e;
	cJSON *j;
	struct value *tasks, *t;
	size_t n = 0;
	int r = -1;

	*out = NULL;
	if ((j = field_json(resp)) == NULL || !is_object(j, "list") ||
	    !cJSON_IsArray(item(j, "results")))
		goto out;
	*out = value_object();
	tasks = value_array();
	value_object_put(*out, "tasks", tasks);
	cJSON_ArrayForEach(e, item(j, "results")) {
		if (n++ == BNC_CARRIER_LIST_MAX)
			break;
		/* a data source may hold other data sources: not tasks */
		if (!is_object(e, "page"))
			continue;
		if ((t = task(e)) == NULL)
			goto out;
		/*
		 * The status filter is applied here, on the status the task
		 * shows: the property's name is the workspace's, unknown to
		 * the carrier, so Notion's own filter cannot be asked for.
		 */
		st = value_get(t, "status");
		if (want != NULL && !(value_is(st, V_STRING) &&
		    st->u.s.len == want->len &&
		    memcmp(st->u.s.p, want->val, want->len) == 0)) {
			value_free(t);
			continue;
		}
		value_array_append(tasks, t);
	}
	r = list_tail(j, *out);
 out:
	cJSON_Delete(j);
	return r;
}

int
notion_filter_page(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	cJSON *j;
	int r = -1;

	(void)args;
	*out = NULL;
	if ((j = field_json(resp)) != NULL && is_object(j, "page") &&
	    (*out = task(j)) != NULL)
		r = 0;
	cJSON_Delete(j);
	return r;
}

int
notion_filter_comments(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	const cJSON *e;
	cJSON *j;
	struct value *list, *c, *id;
	size_t n = 0;
	int r = -1;

	(void)args;
	*out = NULL;
	if ((j = field_json(resp)) == NULL || !is_object(j, "list") ||
	    !cJSON_IsArray(item(j, "results")))
		goto out;
	*out = value_object();
	list = value_array();
	value_object_put(*out, "comments", list);
	cJSON_ArrayForEach(e, item(j, "results")) {
		if (n++ == BNC_CARRIER_LIST_MAX)
			break;
		if (!is_object(e, "comment") ||
		    (id = notion_id_value(e, "id")) == NULL)
			goto out;
		c = value_object();
		value_object_put(c, "id", id);
		value_object_put(c, "created_time", field_value_or_null(e,
		    "created_time", BNC_CARRIER_ID_MAX, FIELD_LINE));
		value_object_put(c, "author", field_value_or_null(item(e,
		    "created_by"), "id", BNC_CARRIER_ID_MAX, FIELD_LINE));
		value_object_put(c, "text", rich_text_value(item(e,
		    "rich_text"), BNC_CARRIER_TEXT_OUT_MAX, FIELD_TEXT));
		value_array_append(list, c);
	}
	r = list_tail(j, *out);
 out:
	cJSON_Delete(j);
	return r;
}

int
notion_filter_comment(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	struct value *id;
	cJSON *j;
	int r = -1;

	(void)args;
	*out = NULL;
	/* without Read comments, Notion answers {"object","id"} only */
	if ((j = field_json(resp)) != NULL && is_object(j, "comment") &&
	    (id = notion_id_value(j, "id")) != NULL) {
		*out = value_object();
		value_object_put(*out, "id", id);
		r = 0;
	}
	cJSON_Delete(j);
	return r;
}

int
notion_filter_noop(const struct http_resp *resp,
    const struct carrier_args *args, struct value **out)
{
	(void)resp;
	(void)args;
	/* a 2xx to the update: the token could write */
	*out = value_object();
	value_object_put(*out, "written", value_bool(1));
	return 0;
}

void
notion_filter_error(const struct http_resp *resp,
    struct msg_carrier_result *res)
{
	const char *s;
	cJSON *j;

	if ((j = field_json(resp)) == NULL)
		return;
	if ((s = field_str(j, "code")) != NULL)
		answer_code(res, s, strlen(s), resp->status);
	if ((s = field_str(j, "message")) != NULL)
		answer_message(res, s, strlen(s));
	cJSON_Delete(j);
}

/* The audit's no-op update */

/* A property name to write back: as read, if it is short and UTF-8. */
static int
name_ok(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && n <= BNC_CARRIER_NAME_MAX && utf8_valid(name, n);
}

static cJSON *
noop_people(const cJSON *p)
{
	const cJSON *e;
	cJSON *arr = cJSON_CreateArray(), *u;
	const char *id;

	cJSON_ArrayForEach(e, item(p, "people")) {
		if ((id = field_str(e, "id")) == NULL || !name_ok(id))
			continue;
		u = cJSON_CreateObject();
		cJSON_AddStringToObject(u, "id", id);
		cJSON_AddItemToArray(arr, u);
	}
	return arr;
}

static cJSON *
noop_date(const cJSON *p)
{
	static const char *const keys[] = { "start", "end", "time_zone" };
	const cJSON *d = item(p, "date");
	cJSON *o;
	const char *s;
	size_t i;

	if (!cJSON_IsObject(d))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((s = field_str(d, keys[i])) != NULL && name_ok(s))
			cJSON_AddStringToObject(o, keys[i], s);
		else
			cJSON_AddNullToObject(o, keys[i]);
	}
	return o;
}

static cJSON *
noop_status(const cJSON *p, const char *type)
{
	const char *s = field_str(item(p, type), "name");
	cJSON *o;

	if (s == NULL || !name_ok(s))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", s);
	return o;
}

static cJSON *
noop_title(const cJSON *p)
{
	const cJSON *e;
	cJSON *arr = cJSON_CreateArray(), *t, *x;
	const char *s;

	cJSON_ArrayForEach(e, item(p, "title")) {
		if ((s = field_str(e, "plain_text")) == NULL ||
		    !utf8_valid(s, strlen(s)))
			continue;
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "text");
		x = cJSON_AddObjectToObject(t, "text");
		cJSON_AddStringToObject(x, "content", s);
		cJSON_AddItemToArray(arr, t);
	}
	return arr;
}

/* Which property each op writes back, and how its value is copied. */
static const struct noop_op {
	const char	*op;
	const char	*type;		/* the property's type */
	const char	*alt;		/* or this one, if none */
} noop_ops[] = {
	{ "owner",	"people",	NULL },
	{ "due",	"date",		NULL },
	{ "status",	"status",	"select" },
	{ "property",	"title",	NULL },
};

int
notion_filter_noop_body(const struct http_resp *got, const char *op,
    struct buf *out)
{
	const struct noop_op *o = NULL;
	const cJSON *p = NULL, *trash;
	const char *type = NULL, *name;
	cJSON *j = NULL, *body, *props, *v = NULL;
	size_t i;

	body = cJSON_CreateObject();
	if (got->status >= 200 && got->status <= 299 && !got->over_cap)
		j = field_json(got);
	if (!is_object(j, "page"))
		goto empty;
	if (strcmp(op, "trash") == 0) {
		/* the page's current state; 2026-03-11 renamed archived */
		if (!cJSON_IsBool(trash = item(j, "in_trash")) &&
		    !cJSON_IsBool(trash = item(j, "archived")))
			goto empty;
		cJSON_AddBoolToObject(body, "in_trash", cJSON_IsTrue(trash));
		goto done;
	}
	for (i = 0; i < sizeof(noop_ops) / sizeof(noop_ops[0]); i++)
		if (strcmp(noop_ops[i].op, op) == 0)
			o = &noop_ops[i];
	if (o == NULL)
		goto empty;
	type = o->type;
	if ((p = first_property(item(j, "properties"), type)) == NULL &&
	    o->alt != NULL)
		p = first_property(item(j, "properties"), type = o->alt);
	if (p == NULL || (name = p->string) == NULL || !name_ok(name))
		goto empty;
	if (strcmp(type, "people") == 0)
		v = noop_people(p);
	else if (strcmp(type, "date") == 0)
		v = noop_date(p);
	else if (strcmp(type, "title") == 0)
		v = noop_title(p);
	else
		v = noop_status(p, type);
	props = cJSON_AddObjectToObject(body, "properties");
	cJSON_AddItemToObject(cJSON_AddObjectToObject(props, name), type, v);
	goto done;
 empty:
	/* could not be read: an update that changes nothing at all */
	cJSON_AddObjectToObject(body, "properties");
 done:
	cJSON_Delete(j);
	return body_put(out, body);
}
