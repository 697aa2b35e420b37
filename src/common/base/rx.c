/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rx.c: the linear-time pattern engine (rx.h): a recursive-descent parser
 * into a small tree, a size check before any code is emitted, emission of
 * a Thompson NFA program, and a Pike VM that runs the program over the
 * subject once, carrying every live thread at the same position — so no
 * input can make it backtrack.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

#define RX_MAX_DEPTH	128	/* nested groups */

enum rx_op {
	OP_CHAR = 0,	/* c */
	OP_ANY,		/* any byte */
	OP_CLASS,	/* a byte of class cls */
	OP_BOL,		/* at the start */
	OP_EOL,		/* at the end */
	OP_SPLIT,	/* continue at x and at y */
	OP_JMP,		/* continue at x */
	OP_MATCH,
};

struct rx_insn {
	uint8_t		op;
	uint8_t		c;
	uint16_t	cls;
	int32_t		x, y;
};

struct rx {
	enum rx_syntax	 syntax;
	struct rx_insn	*code;
	size_t		 n;
	uint8_t		(*cls)[32];	/* bitmaps of 256 bits */
	size_t		 ncls;
};

/* ------------------------------------------------------------- the tree */

enum rx_node_kind {
	N_EMPTY = 0, N_CHAR, N_ANY, N_CLASS, N_BOL, N_EOL, N_CAT, N_ALT,
	N_REPEAT,
};

struct rx_node {
	uint8_t		kind;
	uint8_t		c;
	uint16_t	cls;
	int32_t		a, b;		/* children (CAT, ALT; REPEAT: a) */
	int		min, max;	/* REPEAT; max -1: unbounded */
	uint32_t	size;		/* rx_size_of(), once known */
	bool		sized;
};

struct rx_parser {
	const char	*p, *start, *end;
	enum rx_syntax	 syntax;
	struct rx_node	*nodes;
	size_t		 nnodes, cnodes;
	uint8_t		(*cls)[32];
	size_t		 ncls, ccls;
	const char	*err;
	const char	*err_at;
	int		 depth;
};

static int
rx_fail(struct rx_parser *ps, const char *msg, const char *at)
{
	if (ps->err == NULL) {
		ps->err = msg;
		ps->err_at = at;
	}
	return -1;
}

/* A new node. Returns: its index; -1 (out of memory). */
static int
rx_node(struct rx_parser *ps, uint8_t kind)
{
	if (ps->nnodes == ps->cnodes) {
		size_t nc = ps->cnodes > 0 ? 2 * ps->cnodes : 64;
		struct rx_node *n = realloc(ps->nodes, nc * sizeof(*n));

		if (n == NULL)
			return rx_fail(ps, "out of memory", ps->p);
		ps->nodes = n;
		ps->cnodes = nc;
	}
	memset(&ps->nodes[ps->nnodes], 0, sizeof(ps->nodes[0]));
	ps->nodes[ps->nnodes].kind = kind;
	ps->nodes[ps->nnodes].a = ps->nodes[ps->nnodes].b = -1;
	return (int)ps->nnodes++;
}

static int
rx_node2(struct rx_parser *ps, uint8_t kind, int a, int b)
{
	int n;

	if (a < 0 || b < 0)
		return -1;
	n = rx_node(ps, kind);
	if (n >= 0) {
		ps->nodes[n].a = a;
		ps->nodes[n].b = b;
	}
	return n;
}

/* A new, empty class bitmap. Returns: its index; -1. */
static int
rx_class_new(struct rx_parser *ps)
{
	if (ps->ncls == ps->ccls) {
		size_t nc = ps->ccls > 0 ? 2 * ps->ccls : 8;
		uint8_t (*c)[32] = realloc(ps->cls, nc * sizeof(*c));

		if (c == NULL)
			return rx_fail(ps, "out of memory", ps->p);
		ps->cls = c;
		ps->ccls = nc;
	}
	if (ps->ncls > UINT16_MAX)
		return rx_fail(ps, "too many bracket expressions", ps->p);
	memset(ps->cls[ps->ncls], 0, 32);
	return (int)ps->ncls++;
}

static void
rx_set(uint8_t *bm, unsigned c)
{
	bm[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static const struct {
	const char	*name;
	int		(*fn)(int);
} rx_named[] = {
	{ "alpha", isalpha }, { "digit", isdigit }, { "alnum", isalnum },
	{ "upper", isupper }, { "lower", islower }, { "space", isspace },
	{ "blank", isblank }, { "punct", ispunct }, { "print", isprint },
	{ "graph", isgraph }, { "cntrl", iscntrl }, { "xdigit", isxdigit },
};

/* Add the bytes fn accepts (in the C locale's ASCII range). */
static void
rx_set_fn(uint8_t *bm, int (*fn)(int))
{
	unsigned c;

	for (c = 0; c < 128; c++)
		if (fn((int)c))
			rx_set(bm, c);
}

static int
rx_isword(int c)
{
	return isalnum(c) || c == '_';
}

/* \w \W \s \S as a class node. Returns: the node; -1. */
static int
rx_escape_class(struct rx_parser *ps, char e)
{
	int k = rx_class_new(ps), n, i;

	if (k < 0)
		return -1;
	rx_set_fn(ps->cls[k], e == 'w' || e == 'W' ? rx_isword : isspace);
	if (e == 'W' || e == 'S')
		for (i = 0; i < 32; i++)
			ps->cls[k][i] = (uint8_t)~ps->cls[k][i];
	n = rx_node(ps, N_CLASS);
	if (n >= 0)
		ps->nodes[n].cls = (uint16_t)k;
	return n;
}

/* A bracket expression; ps->p is past the '['. Returns: the node; -1. */
static int
rx_bracket(struct rx_parser *ps)
{
	const char *open = ps->p - 1;
	bool neg = false, first = true;
	int k, n, i;
	uint8_t *bm;

	k = rx_class_new(ps);
	if (k < 0)
		return -1;
	if (ps->p < ps->end && (*ps->p == '^' ||
	    (ps->syntax == RX_GLOB && *ps->p == '!'))) {
		neg = true;
		ps->p++;
	}
	for (;;) {
		unsigned lo, hi;

		bm = ps->cls[k];	/* rx_class_new may have moved it */
		if (ps->p >= ps->end)
			return rx_fail(ps, "unmatched [", open);
		if (*ps->p == ']' && !first)
			break;
		first = false;
		if (*ps->p == '[' && ps->p + 1 < ps->end && ps->p[1] == ':') {
			const char *name = ps->p + 2, *close;
			size_t len;

			close = memchr(name, ':', (size_t)(ps->end - name));
			if (close == NULL || close + 1 >= ps->end ||
			    close[1] != ']')
				return rx_fail(ps, "unmatched [:", ps->p);
			len = (size_t)(close - name);
			for (i = 0; i < (int)(sizeof(rx_named) /
			    sizeof(rx_named[0])); i++)
				if (strlen(rx_named[i].name) == len &&
				    memcmp(rx_named[i].name, name, len) == 0)
					break;
			if (i == (int)(sizeof(rx_named) / sizeof(rx_named[0])))
				return rx_fail(ps, "unknown character class",
				    ps->p);
			rx_set_fn(bm, rx_named[i].fn);
			ps->p = close + 2;
			continue;
		}
		if (ps->syntax == RX_GLOB && *ps->p == '\\' &&
		    ps->p + 1 < ps->end)
			ps->p++;
		lo = (unsigned char)*ps->p++;
		hi = lo;
		if (ps->p + 1 < ps->end && *ps->p == '-' && ps->p[1] != ']') {
			ps->p++;
			if (ps->syntax == RX_GLOB && *ps->p == '\\' &&
			    ps->p + 1 < ps->end)
				ps->p++;
			hi = (unsigned char)*ps->p++;
			if (hi < lo)
				return rx_fail(ps, "invalid range end",
				    ps->p - 1);
		}
		for (; lo <= hi; lo++)
			rx_set(bm, lo);
	}
	ps->p++;	/* ']' */
	if (neg)
		for (i = 0; i < 32; i++)
			bm[i] = (uint8_t)~bm[i];
	n = rx_node(ps, N_CLASS);
	if (n >= 0)
		ps->nodes[n].cls = (uint16_t)k;
	return n;
}

static int rx_parse_alt(struct rx_parser *ps);

static int
rx_char_node(struct rx_parser *ps, unsigned char c)
{
	int n = rx_node(ps, N_CHAR);

	if (n >= 0)
		ps->nodes[n].c = c;
	return n;
}

/* One atom of an ERE, or -2 if there is none here. */
static int
rx_parse_atom(struct rx_parser *ps)
{
	const char *at = ps->p;
	char c = *ps->p;
	int n;

	switch (c) {
	case '(':
		if (++ps->depth > RX_MAX_DEPTH)
			return rx_fail(ps, "groups nested too deeply", at);
		ps->p++;
		n = rx_parse_alt(ps);
		if (n < 0)
			return -1;
		if (ps->p >= ps->end || *ps->p != ')')
			return rx_fail(ps, "unmatched (", at);
		ps->p++;
		ps->depth--;
		return n;
	case ')':
	case '|':
		return -2;
	case '*':
	case '+':
	case '?':
	case '{':
		return rx_fail(ps, "nothing to repeat", at);
	case '.':
		ps->p++;
		return rx_node(ps, N_ANY);
	case '^':
		ps->p++;
		return rx_node(ps, N_BOL);
	case '$':
		ps->p++;
		return rx_node(ps, N_EOL);
	case '[':
		ps->p++;
		return rx_bracket(ps);
	case '\\':
		if (ps->p + 1 >= ps->end)
			return rx_fail(ps, "trailing backslash", at);
		c = ps->p[1];
		ps->p += 2;
		if (c >= '1' && c <= '9')
			return rx_fail(ps, "backreferences are not supported",
			    at);
		if (c == 'w' || c == 'W' || c == 's' || c == 'S')
			return rx_escape_class(ps, c);
		if (c == 'b' || c == 'B' || c == '<' || c == '>' ||
		    c == '`' || c == '\'')
			return rx_fail(ps, "word and buffer anchors are not "
			    "supported", at);
		return rx_char_node(ps, (unsigned char)c);
	default:
		ps->p++;
		return rx_char_node(ps, (unsigned char)c);
	}
}

/* A decimal count of {m,n}. Returns: it; -1 if none; -2 if too large. */
static int
rx_count(struct rx_parser *ps)
{
	int v = 0;

	if (ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
		return -1;
	while (ps->p < ps->end && isdigit((unsigned char)*ps->p)) {
		v = v * 10 + (*ps->p++ - '0');
		if (v > RX_DUP_MAX)
			return -2;
	}
	return v;
}

/* The quantifiers after an atom. */
static int
rx_parse_quant(struct rx_parser *ps, int atom)
{
	while (atom >= 0 && ps->p < ps->end) {
		const char *at = ps->p;
		int min, max, n;

		switch (*ps->p) {
		case '*':
			min = 0;
			max = -1;
			ps->p++;
			break;
		case '+':
			min = 1;
			max = -1;
			ps->p++;
			break;
		case '?':
			min = 0;
			max = 1;
			ps->p++;
			break;
		case '{':
			ps->p++;
			min = rx_count(ps);
			if (min == -2)
				return rx_fail(ps, "repetition count over 255",
				    at);
			if (min == -1)
				min = 0;
			max = min;
			if (ps->p < ps->end && *ps->p == ',') {
				ps->p++;
				max = rx_count(ps);
				if (max == -2)
					return rx_fail(ps, "repetition count "
					    "over 255", at);
			}
			if (ps->p >= ps->end || *ps->p != '}')
				return rx_fail(ps, "invalid {m,n}", at);
			ps->p++;
			if (max >= 0 && max < min)
				return rx_fail(ps, "invalid {m,n}: n < m",
				    at);
			break;
		default:
			return atom;
		}
		n = rx_node(ps, N_REPEAT);
		if (n < 0)
			return -1;
		ps->nodes[n].a = atom;
		ps->nodes[n].min = min;
		ps->nodes[n].max = max;
		atom = n;
	}
	return atom;
}

/* A branch: pieces one after another (possibly none). */
static int
rx_parse_cat(struct rx_parser *ps)
{
	int left = -2, piece;

	while (ps->p < ps->end) {
		piece = rx_parse_atom(ps);
		if (piece == -2)
			break;
		piece = rx_parse_quant(ps, piece);
		if (piece < 0)
			return -1;
		left = left == -2 ? piece : rx_node2(ps, N_CAT, left, piece);
		if (left < 0)
			return -1;
	}
	return left == -2 ? rx_node(ps, N_EMPTY) : left;
}

static int
rx_parse_alt(struct rx_parser *ps)
{
	int left = rx_parse_cat(ps);

	while (left >= 0 && ps->p < ps->end && *ps->p == '|') {
		ps->p++;
		left = rx_node2(ps, N_ALT, left, rx_parse_cat(ps));
	}
	return left;
}

/* A whole glob: its characters in a row. */
static int
rx_parse_glob(struct rx_parser *ps)
{
	int left = rx_node(ps, N_BOL), n;

	while (left >= 0 && ps->p < ps->end) {
		char c = *ps->p++;

		switch (c) {
		case '*':
			n = rx_node(ps, N_ANY);
			if (n >= 0) {
				int r = rx_node(ps, N_REPEAT);

				if (r >= 0) {
					ps->nodes[r].a = n;
					ps->nodes[r].min = 0;
					ps->nodes[r].max = -1;
				}
				n = r;
			}
			break;
		case '?':
			n = rx_node(ps, N_ANY);
			break;
		case '[':
			/* A '[' with no closing ']' is itself, as in fnmatch
			 * (a ']' right after it does not close it). */
			if ((size_t)(ps->end - ps->p) < 2 || memchr(ps->p + 1,
			    ']', (size_t)(ps->end - ps->p) - 1) == NULL) {
				n = rx_char_node(ps, '[');
				break;
			}
			n = rx_bracket(ps);
			break;
		case '\\':
			/* fnmatch(3) matches nothing with a trailing
			 * backslash (POSIX: "shall return a non-zero
			 * value"): refused, as in an ERE. */
			if (ps->p >= ps->end) {
				n = rx_fail(ps, "trailing backslash", ps->p - 1);
				break;
			}
			c = *ps->p++;
			n = rx_char_node(ps, (unsigned char)c);
			break;
		default:
			n = rx_char_node(ps, (unsigned char)c);
			break;
		}
		left = rx_node2(ps, N_CAT, left, n);
	}
	return rx_node2(ps, N_CAT, left, rx_node(ps, N_EOL));
}

/* ------------------------------------------------------------ emission */

/* Instructions node i emits, saturated just past RX_MAX_INSNS (computed
 * once per node, so that emission stays linear in what it emits). */
static size_t
rx_size_of(struct rx_parser *ps, int i)
{
	struct rx_node *n = &ps->nodes[i];
	size_t a, b, lim = RX_MAX_INSNS + 1, size;

	if (n->sized)
		return n->size;
	switch (n->kind) {
	case N_EMPTY:
		size = 0;
		break;
	case N_CAT:
	case N_ALT:
		a = rx_size_of(ps, n->a);
		b = rx_size_of(ps, n->b);
		size = a + b + (n->kind == N_ALT ? 2 : 0);
		break;
	case N_REPEAT:
		a = rx_size_of(ps, n->a);
		if (a == 0 || a >= lim)
			size = a;
		else if (n->max < 0)	/* x{m,}: m copies, the last looped */
			size = n->min == 0 ? a + 2 : (size_t)n->min * a + 1;
		else			/* m copies, then n - m optional */
			size = (size_t)n->min * a +
			    (size_t)(n->max - n->min) * (a + 1);
		break;
	default:
		size = 1;
		break;
	}
	n->size = (uint32_t)(size < lim ? size : lim);
	n->sized = true;
	return n->size;
}

struct rx_emit {
	struct rx_insn	*code;
	size_t		 n;
};

static size_t
rx_put(struct rx_emit *e, uint8_t op)
{
	memset(&e->code[e->n], 0, sizeof(e->code[0]));
	e->code[e->n].op = op;
	return e->n++;
}

static void
rx_emit(struct rx_parser *ps, struct rx_emit *e, int i)
{
	const struct rx_node *n = &ps->nodes[i];
	size_t split, jmp, pc, start;
	int k;

	switch (n->kind) {
	case N_EMPTY:
		return;
	case N_CHAR:
		e->code[rx_put(e, OP_CHAR)].c = n->c;
		return;
	case N_ANY:
		rx_put(e, OP_ANY);
		return;
	case N_CLASS:
		e->code[rx_put(e, OP_CLASS)].cls = n->cls;
		return;
	case N_BOL:
		rx_put(e, OP_BOL);
		return;
	case N_EOL:
		rx_put(e, OP_EOL);
		return;
	case N_CAT:
		rx_emit(ps, e, n->a);
		rx_emit(ps, e, n->b);
		return;
	case N_ALT:
		split = rx_put(e, OP_SPLIT);
		e->code[split].x = (int32_t)e->n;
		rx_emit(ps, e, n->a);
		jmp = rx_put(e, OP_JMP);
		e->code[split].y = (int32_t)e->n;
		rx_emit(ps, e, n->b);
		e->code[jmp].x = (int32_t)e->n;
		return;
	case N_REPEAT:
		if (rx_size_of(ps, n->a) == 0)
			return;
		if (n->max < 0 && n->min == 0) {
			/* L: split body, out; body; jmp L; out: */
			split = rx_put(e, OP_SPLIT);
			e->code[split].x = (int32_t)e->n;
			rx_emit(ps, e, n->a);
			e->code[rx_put(e, OP_JMP)].x = (int32_t)split;
			e->code[split].y = (int32_t)e->n;
			return;
		}
		for (k = 0; k < n->min; k++) {
			start = e->n;
			rx_emit(ps, e, n->a);
			if (n->max < 0 && k == n->min - 1) {
				pc = rx_put(e, OP_SPLIT);
				e->code[pc].x = (int32_t)start;
				e->code[pc].y = (int32_t)e->n;
			}
		}
		if (n->max < 0)
			return;
		/* The optional copies: each split skips to the end of all
		 * of them, patched once that end is known. */
		start = e->n;
		for (k = n->min; k < n->max; k++) {
			split = rx_put(e, OP_SPLIT);
			e->code[split].x = (int32_t)e->n;
			e->code[split].y = -1;
			rx_emit(ps, e, n->a);
		}
		for (pc = start; pc < e->n; pc++)
			if (e->code[pc].op == OP_SPLIT && e->code[pc].y == -1)
				e->code[pc].y = (int32_t)e->n;
		return;
	}
}

int
rx_compile(const char *text, size_t len, enum rx_syntax syntax,
    struct rx **ret, const char **ret_err, size_t *ret_off)
{
	struct rx_parser ps;
	struct rx_emit e;
	struct rx *re;
	size_t size;
	int root;

	*ret_err = NULL;
	*ret_off = 0;
	if (len > RX_MAX_PATTERN) {
		*ret_err = "pattern too long";
		return -EINVAL;
	}
	memset(&ps, 0, sizeof(ps));
	ps.p = ps.start = text;
	ps.end = text + len;
	ps.syntax = syntax;
	if (syntax == RX_GLOB) {
		root = rx_parse_glob(&ps);
	} else {
		root = rx_parse_alt(&ps);
		if (root >= 0 && ps.p < ps.end)	/* a ')' with no '(' */
			root = rx_fail(&ps, "unmatched )", ps.p);
	}
	if (root < 0) {
		free(ps.nodes);
		free(ps.cls);
		if (ps.err == NULL || strcmp(ps.err, "out of memory") == 0)
			return -ENOMEM;
		*ret_err = ps.err;
		*ret_off = (size_t)(ps.err_at - text);
		return -EINVAL;
	}
	size = rx_size_of(&ps, root);
	if (size > RX_MAX_INSNS - 1) {
		free(ps.nodes);
		free(ps.cls);
		*ret_err = "pattern too large (its program would pass 2048 "
		    "instructions)";
		return -EINVAL;
	}
	re = calloc(1, sizeof(*re));
	e.code = calloc(size + 1, sizeof(*e.code));
	if (re == NULL || e.code == NULL) {
		free(re);
		free(e.code);
		free(ps.nodes);
		free(ps.cls);
		return -ENOMEM;
	}
	e.n = 0;
	rx_emit(&ps, &e, root);
	rx_put(&e, OP_MATCH);
	free(ps.nodes);
	re->syntax = syntax;
	re->code = e.code;
	re->n = e.n;
	re->cls = ps.cls;
	re->ncls = ps.ncls;
	*ret = re;
	return 0;
}

size_t
rx_size(const struct rx *re)
{
	return re->n;
}

void
rx_free(struct rx *re)
{
	if (re == NULL)
		return;
	free(re->code);
	free(re->cls);
	free(re);
}

/* ------------------------------------------------------------- the VM */

struct rx_vm {
	const struct rx	*re;
	size_t		 len;
	uint32_t	*mark;		/* per pc: the generation it is in */
	uint32_t	*stack;
	uint64_t	 steps;
};

/*
 * Add the thread at pc, and those its epsilon moves reach, to list for
 * position pos. Returns: true if one of them is MATCH.
 */
static bool
rx_add(struct rx_vm *vm, uint32_t *list, size_t *nlist, uint32_t gen,
    uint32_t pc, size_t pos)
{
	const struct rx_insn *code = vm->re->code;
	size_t sp = 0;

	vm->stack[sp++] = pc;
	while (sp > 0) {
		pc = vm->stack[--sp];
		vm->steps++;
		if (vm->mark[pc] == gen)
			continue;
		vm->mark[pc] = gen;
		switch (code[pc].op) {
		case OP_MATCH:
			return true;
		case OP_JMP:
			vm->stack[sp++] = (uint32_t)code[pc].x;
			break;
		case OP_SPLIT:
			/* A pc is expanded once per generation (its mark),
			 * pushing at most two: the stack never holds more
			 * than 2n + 1. */
			vm->stack[sp++] = (uint32_t)code[pc].y;
			vm->stack[sp++] = (uint32_t)code[pc].x;
			break;
		case OP_BOL:
			if (pos == 0)
				vm->stack[sp++] = pc + 1;
			break;
		case OP_EOL:
			if (pos == vm->len)
				vm->stack[sp++] = pc + 1;
			break;
		default:
			list[(*nlist)++] = pc;
			break;
		}
	}
	return false;
}

bool
rx_match(const struct rx *re, const char *s, size_t len, uint64_t *steps)
{
	struct rx_vm vm = { .re = re, .len = len };
	uint32_t small[5 * 64 + 2], *mem = small, *cur, *next, gen = 0;
	size_t ncur = 0, nnext, pos, i, n = re->n;
	bool matched = false;

	/* mark, cur and next: n each; the stack: 2n + 1 (rx_add). */
	if (5 * n + 2 > sizeof(small) / sizeof(small[0])) {
		mem = malloc((5 * n + 2) * sizeof(*mem));
		if (mem == NULL)
			return false;
	}
	vm.mark = mem;
	cur = mem + n;
	next = mem + 2 * n;
	vm.stack = mem + 3 * n;
	memset(vm.mark, 0xff, n * sizeof(*vm.mark));
	for (pos = 0; !matched; pos++) {
		int c = pos < len ? (unsigned char)s[pos] : -1;

		/* An ERE may start anywhere: a new thread at each position.
		 * A glob only at the start. So an ERE with no thread alive
		 * goes on: "$" on "ab" starts its match at the end. */
		if (pos == 0 || re->syntax == RX_ERE)
			matched = rx_add(&vm, cur, &ncur, gen, 0, pos);
		if (matched || pos >= len ||
		    (ncur == 0 && re->syntax == RX_GLOB))
			break;
		nnext = 0;
		gen++;
		for (i = 0; i < ncur && !matched; i++) {
			const struct rx_insn *in = &re->code[cur[i]];
			bool ok;

			vm.steps++;
			switch (in->op) {
			case OP_CHAR:
				ok = c == in->c;
				break;
			case OP_ANY:
				ok = true;
				break;
			case OP_CLASS:
				ok = (re->cls[in->cls][c >> 3] >> (c & 7)) & 1;
				break;
			default:
				ok = false;
				break;
			}
			if (ok)
				matched = rx_add(&vm, next, &nnext, gen,
				    cur[i] + 1, pos + 1);
		}
		ncur = nnext;
		memcpy(cur, next, nnext * sizeof(*cur));
	}
	if (steps != NULL)
		*steps += vm.steps;
	if (mem != small)
		free(mem);
	return matched;
}
