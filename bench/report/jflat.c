// SPDX-License-Identifier: MIT
/* A recursive-descent JSON reader that keeps scalars under their dotted path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/jflat.h"

#define MAX_DEPTH 16

struct parser {
	const char *s;
	const char *start;
	struct jflat *j;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct parser *p, const char *what)
{
	snprintf(p->err, p->errlen, "offset %zu: %s", (size_t)(p->s - p->start), what);
	return -1;
}

static void skip_ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int push(struct parser *p, const char *key, const char *val, size_t vlen,
		bool is_str)
{
	struct jflat *j = p->j;
	struct jflat_kv *kv;

	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 64;
		struct jflat_kv *n = realloc(j->kv, cap * sizeof(*n));

		if (!n)
			return fail(p, "out of memory");
		j->kv = n;
		j->cap = cap;
	}
	/* Refused rather than cut: a cut key could never be looked up. */
	if (strlen(key) >= sizeof(kv->key))
		return fail(p, "a key longer than JFLAT_KEY_LEN - 1 bytes");
	if (vlen >= sizeof(kv->val))
		return fail(p, "a value longer than JFLAT_VAL_LEN - 1 bytes");
	kv = &j->kv[j->n++];
	snprintf(kv->key, sizeof(kv->key), "%s", key);
	snprintf(kv->val, sizeof(kv->val), "%.*s", (int)vlen, val);
	kv->is_str = is_str;
	return 0;
}

/* A string at p->s (after its opening quote) into out; escapes decoded. */
static int string(struct parser *p, char *out, size_t outlen)
{
	size_t n = 0;

	while (*p->s && *p->s != '"') {
		char c = *p->s++;

		if (c == '\\') {
			c = *p->s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				char hex[5] = { 0 };
				unsigned long u;

				/* ASCII only; anything else becomes '?'. */
				if (strspn(p->s, "0123456789abcdefABCDEF") < 4)
					return fail(p, "bad \\u escape");
				memcpy(hex, p->s, 4);
				u = strtoul(hex, NULL, 16);
				c = u < 0x80 ? (char)u : '?';
				p->s += 4;
				break;
			}
			case '"': case '\\': case '/':
				break;
			default:
				return fail(p, "bad escape");
			}
		}
		if (n + 1 >= outlen)
			return fail(p, "a string longer than its limit (JFLAT_KEY_LEN or _VAL_LEN)");
		out[n++] = c;
	}
	if (*p->s != '"')
		return fail(p, "string not closed");
	p->s++;
	out[n] = '\0';
	return 0;
}

static int value(struct parser *p, const char *key);

/* key.name; a path longer than the key limit is refused (it could not be looked up). */
static int child_key(struct parser *p, char *out, size_t len, const char *key, const char *name)
{
	if (snprintf(out, len, "%s%s%s", key, key[0] ? "." : "", name) >= (int)len)
		return fail(p, "a key path longer than JFLAT_KEY_LEN - 1 bytes");
	return 0;
}

static int object(struct parser *p, const char *key)
{
	char name[JFLAT_KEY_LEN], ck[JFLAT_KEY_LEN];

	p->s++;
	skip_ws(p);
	if (*p->s == '}') {
		p->s++;
		return 0;
	}
	for (;;) {
		skip_ws(p);
		if (*p->s != '"')
			return fail(p, "expected a key");
		p->s++;
		if (string(p, name, sizeof(name)))
			return -1;
		skip_ws(p);
		if (*p->s != ':')
			return fail(p, "expected ':'");
		p->s++;
		if (child_key(p, ck, sizeof(ck), key, name) || value(p, ck))
			return -1;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == '}') {
			p->s++;
			return 0;
		}
		return fail(p, "expected ',' or '}'");
	}
}

static int array(struct parser *p, const char *key)
{
	char idx[24], ck[JFLAT_KEY_LEN];
	unsigned int i = 0;

	p->s++;
	skip_ws(p);
	if (*p->s == ']') {
		p->s++;
		return 0;
	}
	for (;; i++) {
		snprintf(idx, sizeof(idx), "%u", i);
		if (child_key(p, ck, sizeof(ck), key, idx) || value(p, ck))
			return -1;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s == ']') {
			p->s++;
			return 0;
		}
		return fail(p, "expected ',' or ']'");
	}
}

static int value(struct parser *p, const char *key)
{
	char str[JFLAT_VAL_LEN];
	const char *v;
	int ret;

	skip_ws(p);
	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested too deep");
	switch (*p->s) {
	case '{':
		ret = object(p, key);
		break;
	case '[':
		ret = array(p, key);
		break;
	case '"':
		p->s++;
		ret = string(p, str, sizeof(str));
		if (!ret)
			ret = push(p, key, str, strlen(str), true);
		break;
	default:
		v = p->s;
		while (*p->s && strchr("+-.0123456789eEtruefalsn", *p->s))
			p->s++;
		if (p->s == v)
			return fail(p, "expected a value");
		ret = push(p, key, v, (size_t)(p->s - v), false);
	}
	p->depth--;
	return ret;
}

int jflat_parse(struct jflat *j, const char *text, char *err, size_t errlen)
{
	struct parser p = { .s = text, .start = text, .j = j, .err = err, .errlen = errlen };

	memset(j, 0, sizeof(*j));
	if (value(&p, ""))
		goto bad;
	skip_ws(&p);
	if (*p.s) {
		fail(&p, "text after the document");
		goto bad;
	}
	return 0;
bad:
	jflat_free(j);
	return -1;
}

int jflat_load(struct jflat *j, const char *path, char *err, size_t errlen)
{
	char why[160];
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int ret = -1;

	memset(j, 0, sizeof(*j));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 65536);

			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			buf = nb;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto out;
	}
	buf[len] = '\0';
	if (jflat_parse(j, buf, why, sizeof(why)))
		snprintf(err, errlen, "%s: %s", path, why);
	else
		ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

void jflat_free(struct jflat *j)
{
	free(j->kv);
	memset(j, 0, sizeof(*j));
}

const char *jflat_get(const struct jflat *j, const char *key)
{
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->kv[i].key, key))
			return j->kv[i].val;
	return NULL;
}

double jflat_num(const struct jflat *j, const char *key, double def)
{
	const char *v = jflat_get(j, key);
	char *end;
	double d;

	if (!v || !*v)
		return def;
	d = strtod(v, &end);
	return *end ? def : d;
}

bool jflat_has(const struct jflat *j, const char *prefix)
{
	size_t len = strlen(prefix);

	for (size_t i = 0; i < j->n; i++)
		if (!strncmp(j->kv[i].key, prefix, len) &&
		    (j->kv[i].key[len] == '\0' || j->kv[i].key[len] == '.'))
			return true;
	return false;
}
